// `tts say` as a user runs it: no voice, files, raw PCM, stdin lines, the speakers (through ALSA's
// file plugin) and the documented exit codes; and the commands around it: `tts voices pack`,
// `tts synth-mel` and `tts vocode FRAMES.npy`.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "random_voice_suite.h"
#include "tts/audio/audio_file.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/npy.h"
#include "tts/tts.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::int16_t> s16(const std::string& bytes) {
  std::vector<std::int16_t> s(bytes.size() / 2);
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = static_cast<std::int16_t>(static_cast<unsigned char>(bytes[2 * i]) |
                                     static_cast<unsigned char>(bytes[2 * i + 1]) << 8);
  return s;
}

// The random voice is babble on the command's voice path (folder() / "voices"), beside a folder
// that is not a voice.
class SayCli : public tts::testing_support::RandomVoiceSuite<SayCli> {
 public:
  static fs::path voice_subfolder() { return fs::path("voices") / "babble"; }

 protected:
  static void SetUpTestSuite() {
    RandomVoiceSuite::SetUpTestSuite();
    fs::create_directories(folder() / "voices" / "empty");
  }
  // Runs `tts ARGS` through the shell with the test's voice path and data folder.
  static Result tts(const std::string& args, const std::string& env = "") {
    const fs::path out = folder() / "stdout", err = folder() / "stderr";
    const std::string command =
        "cd " + folder().string() +
        " && unset ALSA_CONFIG_PATH; TTS_VOICE_PATH=" + (folder() / "voices").string() +
        " XDG_DATA_HOME=" + (folder() / "data").string() + " " + env + " " + TTS_BINARY_DIR +
        "/tools/tts " + args +
        (args.rfind("say", 0) == 0 && args.find("--help") == std::string::npos ? " --rate 6" : "") +
        " >" + out.string() + " 2>" + err.string();
    Result r;
    const int status = std::system(command.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
};

TEST_F(SayCli, WithoutAVoiceSaysNoVoiceIsInstalledYet) {
  if (tts::engine::find_voice("default")) GTEST_SKIP() << "a default voice is installed";
  const Result r = tts("say \"Hello, world.\"");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no voice installed yet"), std::string::npos) << r.err;
}

// The README's first command, with the bundled voice (voices/default) when it is there.
TEST_F(SayCli, TheBundledDefaultVoiceSpeaks) {
  if (!tts::engine::find_voice("default")) GTEST_SKIP() << "no default voice is installed";
  Result r = tts("say -o default.wav --seed 3 \"Hello, world.\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto audio = tts::audio::read_audio(folder() / "default.wav");
  EXPECT_EQ(audio.sample_rate, 16000);
  // Two words at --rate 6 (added by tts() for speed): well under a second, but not nothing.
  const double seconds = static_cast<double>(audio.samples.size()) / audio.sample_rate;
  EXPECT_GT(seconds, 0.05);
  EXPECT_LT(seconds, 2.0);
  double energy = 0.0;
  for (float x : audio.samples) energy += static_cast<double>(x) * x;
  EXPECT_GT(std::sqrt(energy / static_cast<double>(audio.samples.size())), 0.005) << "silent";
  // The same seed gives the same audio.
  r = tts("say -o again.wav --seed 3 \"Hello, world.\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tts::audio::read_audio(folder() / "again.wav").samples, audio.samples);
}

TEST_F(SayCli, WritesAFileThatMatchesTheRawStream) {
  Result r = tts("say --voice babble --seed 5 -o out.wav \"Hello there. Second sentence.\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto audio = tts::audio::read_audio(folder() / "out.wav");
  EXPECT_EQ(audio.sample_rate, 16000);
  ASSERT_GT(audio.samples.size(), 1000u);
  r = tts("say --voice babble --seed 5 --raw \"Hello there. Second sentence.\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto raw = s16(r.out);
  ASSERT_EQ(raw.size(), audio.samples.size());
  for (std::size_t i = 0; i < raw.size(); ++i)
    ASSERT_NEAR(raw[i] / 32768.0, audio.samples[i], 2.0 / 32768) << i;
  // Other formats by extension.
  EXPECT_EQ(tts("say --voice babble -o out.flac Hi.").exit_code, 0);
  EXPECT_EQ(tts::audio::read_audio(folder() / "out.flac").samples.size() > 0, true);
}

TEST_F(SayCli, StdinIsSpokenLineByLine) {
  const auto one = s16(tts("say --voice babble --raw One.").out);
  const auto two = s16(tts("say --voice babble --raw Two.").out);
  ASSERT_FALSE(one.empty());
  std::ofstream(folder() / "lines.txt") << "One.\n\nTwo.\n";
  const Result lines = tts("say --voice babble --raw --sentence-silence 0.25 < lines.txt");
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(s16(lines.out).size(), one.size() + 4000 + two.size());
  // -f FILE reads the whole file as one text.
  const Result file = tts("say --voice babble --raw -f lines.txt");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_GT(s16(file.out).size(), one.size());
}

TEST_F(SayCli, DocumentedExitCodes) {
  Result r = tts("say --voice babble --raw -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = tts("say --voice " + (folder() / "voices" / "empty").string() + " -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("voice.json"), std::string::npos) << r.err;
  r = tts("say --voice nobody -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no voice named \"nobody\""), std::string::npos) << r.err;
  r = tts("say --voice babble --ssml -o x.wav \"<speak><s>unclosed\"");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(fs::exists(folder() / "x.wav"));  // no half file, and no temporary beside it
  for (const auto& entry : fs::directory_iterator(folder()))
    EXPECT_EQ(entry.path().filename().string().find("x.wav.tmp"), std::string::npos);
  // An output that cannot be written fails before synthesis, naming it.
  r = tts("say --voice babble -o no-such-folder/x.wav Hi.");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no-such-folder/x.wav"), std::string::npos) << r.err;
  // An output format say cannot write is a usage error, found before the voice is even looked up.
  r = tts("say --voice babble -o x.aac Hi.");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("use .wav, .flac, .ogg, .opus or .mp3"), std::string::npos) << r.err;
  r = tts("say --voice nobody -o x.aac Hi.");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(folder() / "x.aac"));
  // MP3 and Opus are written as the other formats are, and read back as audio.
  for (const char* name : {"hi.mp3", "hi.opus"}) {
    r = tts(std::string("say --voice babble -o ") + name + " 'Hello there.'");
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_GT(tts::audio::read_audio(folder() / name).samples.size(), 1600u) << name;
  }
  r = tts("say --voice babble --device cuda -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  r = tts("say --voice babble --rate 0 -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 2);
  r = tts("say --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("4 no audio output device"), std::string::npos) << r.out;
}

TEST_F(SayCli, InvalidUtf8OnAStdinLineNamesTheLineAndTheOffsetWithinIt) {
  std::ofstream(folder() / "bad-lines.txt", std::ios::binary) << "One.\n\nTwo \xff three.\n";
  const Result r = tts("say --voice babble --raw < bad-lines.txt");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("byte offset 4"), std::string::npos) << r.err;
  EXPECT_FALSE(r.out.empty()) << "the lines before it were spoken";
}

// One range for the speaking rate, (0, 10], in the C API (SynthesisOptions::validate) and the CLI.
TEST_F(SayCli, RateRangeIsTheSameInTheCliAndTheCApi) {
  tts_voice* voice = nullptr;
  ASSERT_EQ(tts_voice_load(voice_path().c_str(), nullptr, &voice), TTS_OK) << tts_last_error();
  tts_stream* stream = nullptr;
  ASSERT_EQ(tts_stream_create(voice, &stream), TTS_OK);
  for (const char* rate : {"0", "-1", "10.01", "nan", "0.05", "0.1", "10"}) {
    const float value = std::strtof(rate, nullptr);
    const bool valid = value > 0.0f && value <= 10.0f;
    tts_synthesis_options o;
    tts_default_synthesis_options(&o);
    o.rate = value;
    // Text without words gives no audio, so even a slow rate is quick.
    EXPECT_EQ(tts_synthesize_start(stream, ".", &o), valid ? TTS_OK : TTS_ERR_INVALID_ARGUMENT)
        << rate;
    if (valid) {
      tts_chunk c;
      tts_chunk_init(&c);
      int rc;
      while ((rc = tts_synthesize_next(stream, &c)) == TTS_OK) {
      }
      EXPECT_EQ(rc, TTS_DONE) << rate << ": " << tts_stream_last_error(stream);
    }
    // The leading space keeps tts() from adding its own --rate.
    const Result r = tts(std::string(" say --voice babble --raw --rate ") + rate + " .");
    EXPECT_EQ(r.exit_code, valid ? 0 : 2) << rate << ": " << r.err;
  }
  tts_stream_free(stream);
  tts_voice_free(voice);
}

// ALSA reads $XDG_CONFIG_HOME/alsa/asoundrc; the speakers are a file or a missing card.
TEST_F(SayCli, SpeakersThroughAlsaFilePluginAndNoDevice) {
  const fs::path config = folder() / "config";
  fs::create_directories(config / "alsa");
  const std::string env = "XDG_CONFIG_HOME=" + config.string() + " ASAN_OPTIONS=detect_leaks=0";
  std::ofstream(config / "alsa" / "asoundrc") << "pcm.!default { type hw card 63 }\n"
                                                 "ctl.!default { type hw card 63 }\n";
  Result r = tts("say --voice babble Hi.", env);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("-o file.wav"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;

  const fs::path tap = folder() / "played.raw";
  std::ofstream(config / "alsa" / "asoundrc")
      << "pcm.!default {\n  type plug\n  slave { pcm \"tts_tap\" format S16_LE channels 1 rate "
         "16000 }\n}\npcm.tts_tap {\n  type file\n  slave.pcm \"null\"\n  file \""
      << tap.string() << "\"\n  format \"raw\"\n}\n";
  r = tts("say --voice babble --seed 9 \"Spoken aloud.\"", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Result raw = tts("say --voice babble --seed 9 --raw \"Spoken aloud.\"");
  std::vector<std::int16_t> played, expected;
  for (auto s : s16(slurp(tap)))
    if (s != 0) played.push_back(s);
  for (auto s : s16(raw.out))
    if (s != 0) expected.push_back(s);
  ASSERT_EQ(played.size(), expected.size());
  for (std::size_t i = 0; i < played.size(); ++i) ASSERT_NEAR(played[i], expected[i], 2) << i;
}

}  // namespace

TEST_F(SayCli, PackedVoiceSynthMelAndVocodeOfTheFrames) {
  std::ofstream(folder() / "card.md") << "# a model card\n";
  const std::string babble = voice_path().string();
  Result r =
      tts("voices pack voices/packed --acoustic " + babble + "/acoustic --vocoder " + babble +
          "/vocoder --name packed --licence CC0-1.0 --source \"a test\" --extra "
          "card.md=MODEL_CARD.md");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto voice = tts::engine::Voice::load(folder() / "voices" / "packed");
  EXPECT_EQ(voice->info().name, "packed");
  EXPECT_EQ(voice->info().licence, "CC0-1.0");
  EXPECT_EQ(slurp(folder() / "voices" / "packed" / "MODEL_CARD.md"), "# a model card\n");
  EXPECT_NE(tts("voices").out.find("packed"), std::string::npos);

  // The frames are exactly what the acoustic model predicts for the sentence's ids.
  r = tts("synth-mel \"Hello there.\" --voice packed -o frames.npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const tts::kernels::NpyArray frames = tts::kernels::read_npy(folder() / "frames.npy");
  const auto sentence = voice->text().process_sentence("Hello there.");
  const auto expected = voice->acoustic().synthesize(
      std::vector<int32_t>(sentence.ids.begin(), sentence.ids.end()), {});
  ASSERT_EQ(frames.shape,
            (std::vector<std::size_t>{static_cast<std::size_t>(expected.mel.cols()),
                                      static_cast<std::size_t>(expected.mel.rows())}));
  for (Eigen::Index f = 0; f < expected.mel.cols(); ++f)
    for (Eigen::Index m = 0; m < expected.mel.rows(); ++m)
      ASSERT_FLOAT_EQ(frames.data[static_cast<std::size_t>(f * expected.mel.rows() + m)],
                      expected.mel(m, f));
  // The acoustic model's own folder works too, and gives the same frames.
  r = tts("synth-mel \"Hello there.\" --acoustic voices/packed/acoustic -o same.npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tts::kernels::read_npy(folder() / "same.npy").data, frames.data);

  // `tts vocode` speaks the frames: centred frames 0..F-1 span (F - 1) hops of samples.
  r = tts("vocode frames.npy -o frames.wav --model voices/packed/vocoder");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tts::audio::read_audio(folder() / "frames.wav").samples.size(),
            (frames.shape[0] - 1) * static_cast<std::size_t>(voice->features().hop_length));
}

TEST_F(SayCli, SynthMelTimingsAreTheModelsDurationsTilingTheFrames) {
  const std::string babble = voice_path().string();
  Result r = tts("synth-mel \"Hello there. Good bye.\" --voice " + babble +
                 " -o two.npy --timings two.tsv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto voice = tts::engine::Voice::load(babble);
  const double seconds_per_frame = static_cast<double>(voice->features().hop_length) /
                                   static_cast<double>(voice->features().sample_rate);
  std::ifstream tsv(folder() / "two.tsv");
  std::string line;
  ASSERT_TRUE(std::getline(tsv, line));
  EXPECT_EQ(line, "sentence\tindex\tsymbol\tframes\tstart_s\tend_s\tf0_hz");
  ASSERT_TRUE(voice->acoustic().predicts_pitch());
  double previous_end = 0.0;
  int total_frames = 0, pitched = 0;
  const char* sentences[] = {"Hello there.", "Good bye."};
  for (int s = 0; s < 2; ++s) {
    const auto sentence = voice->text().process_sentence(sentences[s]);
    const auto expected = voice->acoustic().synthesize(
        std::vector<int32_t>(sentence.ids.begin(), sentence.ids.end()), {});
    for (std::size_t i = 0; i < sentence.ids.size(); ++i) {
      ASSERT_TRUE(std::getline(tsv, line)) << "sentence " << s + 1 << " row " << i;
      std::istringstream row(line);
      int sentence_number = 0, index = -1, frames = -1;
      std::string symbol;
      double start = -1.0, end = -1.0, f0 = -1.0;
      std::getline(row, symbol, '\t');
      sentence_number = std::stoi(symbol);
      std::getline(row, symbol, '\t');
      index = std::stoi(symbol);
      std::getline(row, symbol, '\t');
      row >> frames >> start >> end >> f0;
      const std::string& name = voice->symbols().symbol(sentence.ids[i]);
      EXPECT_EQ(sentence_number, s + 1);
      EXPECT_EQ(index, static_cast<int>(i));
      EXPECT_EQ(symbol, name == " " ? "|" : name) << line;
      EXPECT_EQ(frames, expected.durations[i]) << line;
      EXPECT_NEAR(start, previous_end, 1e-9) << line;  // the spans tile the output
      EXPECT_NEAR(end - start, frames * seconds_per_frame, 1e-4) << line;
      // The model's F0 for the phone, to the TSV's 0.1 Hz; none for a phone that is not heard.
      if (frames > 0) {
        EXPECT_NEAR(f0, expected.f0_hz[i], 0.051) << line;
        EXPECT_GT(f0, 40.0) << line;
        ++pitched;
      } else {
        EXPECT_EQ(f0, 0.0) << line;
      }
      previous_end = end;
      total_frames += frames;
    }
  }
  EXPECT_FALSE(std::getline(tsv, line)) << "extra row: " << line;
  EXPECT_GT(pitched, 5);
  EXPECT_EQ(static_cast<std::size_t>(total_frames),
            tts::kernels::read_npy(folder() / "two.npy").shape[0]);
  EXPECT_NEAR(previous_end, total_frames * seconds_per_frame, 1e-4);

  // --pitch raises every phone's F0 by that many semitones.
  r = tts("synth-mel \"Hello there. Good bye.\" --voice " + babble +
          " -o up.npy --timings up.tsv --pitch 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream plain_tsv(folder() / "two.tsv"), up_tsv(folder() / "up.tsv");
  std::string plain_line, up_line;
  std::getline(plain_tsv, plain_line);
  std::getline(up_tsv, up_line);
  int compared = 0;
  while (std::getline(plain_tsv, plain_line) && std::getline(up_tsv, up_line)) {
    const double f0 = std::stod(plain_line.substr(plain_line.rfind('\t') + 1));
    const double raised = std::stod(up_line.substr(up_line.rfind('\t') + 1));
    if (f0 == 0.0) continue;
    EXPECT_NEAR(12.0 * std::log2(raised / f0), 4.0, 0.01) << plain_line << " / " << up_line;
    ++compared;
  }
  EXPECT_GT(compared, 5);
  // (The random voice's pitch embedding starts at zero, so its frames do not change; that the
  // bundled voice's audio follows --pitch is checked in engine_voice_pitch_test.)
}

TEST_F(SayCli, SayTimingsPlaceEverySymbolInTheOutputAudio) {
  const std::string babble = voice_path().string();
  Result r = tts("say \"Hello there. Good bye.\" --voice " + babble +
                 " --sentence-silence 0.5 -o timed.wav --timings timed.tsv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto audio = tts::audio::read_audio(folder() / "timed.wav");
  const double duration =
      static_cast<double>(audio.samples.size()) / static_cast<double>(audio.sample_rate);
  const auto voice = tts::engine::Voice::load(babble);
  std::ifstream tsv(folder() / "timed.tsv");
  std::string line;
  ASSERT_TRUE(std::getline(tsv, line));
  EXPECT_EQ(line, "sentence\tindex\tsymbol\tstart_s\tend_s");
  const char* sentences[] = {"Hello there.", "Good bye."};
  double previous_end = 0.0;
  for (int s = 0; s < 2; ++s) {
    const auto ids = voice->text().process_sentence(sentences[s]).ids;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ASSERT_TRUE(std::getline(tsv, line)) << "sentence " << s + 1 << " row " << i;
      std::istringstream row(line);
      std::string sentence, index, symbol;
      double start = -1.0, end = -1.0;
      std::getline(row, sentence, '\t');
      std::getline(row, index, '\t');
      std::getline(row, symbol, '\t');
      row >> start >> end;
      EXPECT_EQ(sentence, std::to_string(s + 1));
      EXPECT_EQ(index, std::to_string(i));
      const std::string& name = voice->symbols().symbol(ids[i]);
      EXPECT_EQ(symbol, name == " " ? "|" : name) << line;
      // Within a sentence the spans tile its audio; the second sentence starts after the first
      // and the 0.5 s of silence between them.
      const double expected_start = i == 0 && s == 1 ? previous_end + 0.5 : previous_end;
      EXPECT_NEAR(start, expected_start, 1e-4) << line;
      EXPECT_GE(end, start) << line;
      previous_end = end;
    }
  }
  EXPECT_FALSE(std::getline(tsv, line)) << "extra row: " << line;
  EXPECT_NEAR(previous_end, duration, 1e-4);  // the last sentence ends the file
}

TEST_F(SayCli, SayTimingsListSsmlMarksWhereTheirWordsStart) {
  const std::string babble = voice_path().string();
  std::ofstream(folder() / "marks.ssml")
      << "<speak><mark name=\"a\"/>Hello <mark name=\"b\"/>there."
         "<mark name=\"c\"/><break time=\"100ms\"/><mark name=\"d\"/>Bye.<mark name=\"e\"/>"
         "</speak>";
  Result r =
      tts("say --ssml -f marks.ssml --voice " + babble + " -o marked.wav --timings marked.tsv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto audio = tts::audio::read_audio(folder() / "marked.wav");
  const double duration =
      static_cast<double>(audio.samples.size()) / static_cast<double>(audio.sample_rate);
  std::ifstream tsv(folder() / "marked.tsv");
  std::string line, previous_symbol;
  std::getline(tsv, line);
  std::vector<std::string> marks;
  std::vector<double> at;
  double previous_start = 0.0;
  bool mark_due = false;  // a mark before a word: the next row starts a word at its time
  while (std::getline(tsv, line)) {
    std::istringstream row(line);
    std::string sentence, index, symbol;
    double start = -1.0, end = -1.0;
    std::getline(row, sentence, '\t');
    std::getline(row, index, '\t');
    std::getline(row, symbol, '\t');
    row >> start >> end;
    EXPECT_GE(start, previous_start) << line;  // by time
    previous_start = start;
    if (index == "mark") {
      EXPECT_EQ(start, end) << line;
      marks.push_back(symbol);
      at.push_back(start);
      mark_due = symbol == "a" || symbol == "b" || symbol == "d";
      continue;
    }
    if (mark_due) {  // the first symbol of the word the mark is before
      EXPECT_NEAR(start, at.back(), 1e-4) << line;
      EXPECT_TRUE(previous_symbol == "^" || previous_symbol == "|") << line;
      mark_due = false;
    }
    previous_symbol = symbol;
  }
  EXPECT_EQ(marks, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  ASSERT_EQ(at.size(), 5u);
  EXPECT_GT(at[3] - at[2], 0.1 - 1e-4);  // the break lies between c and d
  EXPECT_NEAR(at[4], duration, 1e-4);    // e: the very end
}

TEST_F(SayCli, PackAndSynthMelErrorsNameTheProblem) {
  const std::string babble = voice_path().string();
  const std::string common = " --name x --licence CC0-1.0 --source test";
  // The vocoder folder holds no vocoder.json.
  Result r = tts("voices pack bad --acoustic " + babble + "/acoustic --vocoder " + babble +
                 "/acoustic" + common);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("vocoder.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(folder() / "bad" / "voice.json"));
  // Extra files stay inside the voice and never replace the models.
  std::ofstream(folder() / "note.txt") << "x";
  r = tts("voices pack bad --acoustic " + babble + "/acoustic --vocoder " + babble +
          "/vocoder --extra note.txt=../escape.txt" + common);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(".."), std::string::npos) << r.err;
  r = tts("voices pack bad --acoustic " + babble + "/acoustic --vocoder " + babble +
          "/vocoder --extra note.txt=vocoder/vocoder.json" + common);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("replace a file of the models"), std::string::npos) << r.err;
  // synth-mel: exactly one model, text that says something, frames of the right width.
  EXPECT_EQ(tts("synth-mel Hi -o x.npy").exit_code, 2);
  r = tts("synth-mel \"...\" --voice babble -o x.npy");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("nothing to pronounce"), std::string::npos) << r.err;
  const std::vector<float> narrow(3 * 7, 0.0f);
  tts::kernels::write_npy(folder() / "narrow.npy", narrow.data(), {3, 7});
  r = tts("vocode narrow.npy -o x.wav --model " + babble + "/vocoder");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("(frames, 80)"), std::string::npos) << r.err;
}
