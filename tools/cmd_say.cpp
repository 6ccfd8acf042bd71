// `tts say`: speak text with a voice, to the speakers, a file, or raw PCM on stdout.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "commands.h"
#include "device_options.h"
#include "output_files.h"
#include "tts/audio/audio_file.h"
#include "tts/audio/playback.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_language.h"
#include "tts/engine/voice_search.h"
#include "tts/frontend/ssml.h"
#include "tts/frontend/utf8.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/device.h"
#include "weights_option.h"

namespace tts::cli {

namespace {

struct SayOptions {
  std::vector<std::string> words;
  std::string file;
  std::string voice = "default";
  bool voice_given = false;     // --voice on the command line; without it --lang chooses the voice
  bool language_given = false;  // --lang, even an empty one (refused: leave it out instead)
  std::string output;
  std::string timings;  // TSV of every symbol's span in the output audio
  bool raw = false;
  bool ssml = false;
  kernels::Device device = kernels::Device::kCpu;
  kernels::WeightPrecision weights = kernels::default_weight_precision();
  engine::SynthesisOptions synthesis;
};

// Where the audio goes. Speakers, stdout and files all take chunks as they come; a file is
// encoded into a temporary as it grows and renamed into place at the end, so memory stays bounded
// for any length of text and an interrupted run leaves no half file.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const float* samples, std::size_t count) = 0;
  virtual void finish() {}
};

class SpeakerSink : public Sink {
 public:
  explicit SpeakerSink(int rate) : playback_(rate) {}
  void write(const float* s, std::size_t n) override { playback_.write(s, n); }
  void finish() override { playback_.drain(); }

 private:
  audio::PlaybackSink playback_;
};

class RawSink : public Sink {
 public:
  void write(const float* s, std::size_t n) override {
    audio::write_raw_s16le(stdout, s, n);
    std::fflush(stdout);
    if (std::ferror(stdout)) throw audio::AudioError("stdout: write failed");
  }
};

class FileSink : public Sink {
 public:
  FileSink(const std::string& path, int rate) : writer_(path, rate) {}
  void write(const float* s, std::size_t n) override { writer_.write(s, n); }
  void finish() override { writer_.finish(); }

 private:
  audio::AudioFileWriter writer_;
};

// Passes audio on to another sink, counting it, and keeps a TSV row for every symbol of every
// sentence at its time in the whole output (sentence silences and the gaps between stdin lines
// included): the table lip-sync and subtitle tools take. SSML marks get a row each too (index
// "mark", the name as symbol, start_s = end_s = when it falls), among the symbols by time, before
// the symbol that sounds from where the mark is. Written, atomically, after the audio.
class TimingsSink : public Sink {
 public:
  TimingsSink(Sink& inner, std::string path, int rate)
      : inner_(inner), path_(std::move(path)), rate_(rate) {}
  // Called with each chunk before its samples are written.
  void note(const engine::AudioChunk& chunk) {
    if (chunk.sentence && chunk.sentence != last_ && !chunk.sentence->alignment.empty()) {
      last_ = chunk.sentence;
      ++sentences_;
      const std::size_t sentence_start = written_ - chunk.sentence_offset;
      const auto& spans = chunk.sentence->alignment;
      for (std::size_t i = 0; i < spans.size(); ++i) {
        const std::string& name = spans[i].symbol;
        const std::size_t start = sentence_start + spans[i].start;
        std::ostringstream row;
        row << sentences_ << '\t' << i << '\t' << (name == " " ? "|" : name) << '\t'
            << seconds(start) << '\t' << seconds(start + spans[i].count) << '\n';
        rows_.push_back({start, spans[i].count > 0 ? 1 : 0, rows_.size(), row.str()});
      }
    }
    for (const auto& m : chunk.marks) {
      const std::size_t at = written_ + m.sample;
      rows_.push_back({at, 0, rows_.size(),
                       std::to_string(sentences_) + "\tmark\t" + m.name + '\t' + seconds(at) +
                           '\t' + seconds(at) + '\n'});
    }
  }
  void write(const float* s, std::size_t n) override {
    inner_.write(s, n);
    written_ += n;
  }
  void finish() override {
    inner_.finish();
    std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
      return a.start != b.start ? a.start < b.start : a.rank < b.rank;
    });
    std::string table = "sentence\tindex\tsymbol\tstart_s\tend_s\n";
    for (const Row& row : rows_) table += row.text;
    kernels::write_file_atomically(path_, table);
  }

 private:
  struct Row {
    std::size_t start;  // sample
    // A mark (0) comes after the empty spans (0, added before it) at its sample and before the
    // symbol that sounds from there (1).
    int rank;
    std::size_t order;
    std::string text;
  };
  std::string seconds(std::size_t sample) const {
    std::ostringstream text;
    text << std::fixed << std::setprecision(4)
         << static_cast<double>(sample) / static_cast<double>(rate_);
    return text.str();
  }
  Sink& inner_;
  std::string path_;
  int rate_;
  std::size_t written_ = 0;
  int sentences_ = 0;
  std::shared_ptr<const engine::SentenceInfo> last_;
  std::vector<Row> rows_;
};

// Speaks one input; `progress_total` > 0 draws a progress bar on stderr (bytes of text).
void speak(engine::SynthesisStream& stream, const std::string& text, const SayOptions& o,
           Sink& sink, TimingsSink* timings, std::size_t progress_total) {
  engine::SynthesisOptions so = o.synthesis;
  so.ssml = o.ssml;
  so.device = o.device;
  if (so.ssml) {  // the engine keeps no warnings: the parser's (an xml:lang the voice does not
                  // speak, an unknown element) are told here; errors come from the stream
    const frontend::TextPipeline& pipeline = stream.voice().text();
    try {
      for (const auto& warning :
           frontend::parse_ssml(text, pipeline.languages(),
                                pipeline.find_language(so.language).value_or(0))
               .warnings)
        std::cerr << "tts say: SSML " << frontend::printable(warning) << "\n";
    } catch (const std::exception&) {
    }
  }
  stream.start(text, so);
  engine::AudioChunk chunk;
  int last_sentence = -1;
  std::size_t done_bytes = 0;
  while (stream.next(chunk)) {
    if (timings) timings->note(chunk);
    sink.write(chunk.samples.data(), chunk.samples.size());
    if (progress_total > 0 && chunk.sentence && chunk.sentence->index > last_sentence) {
      last_sentence = chunk.sentence->index;
      done_bytes += chunk.sentence->text.size() + 1;
      const int percent = static_cast<int>(
          100.0 * std::min<std::size_t>(done_bytes, progress_total) / progress_total);
      std::fprintf(stderr, "\rtts say: [%-40s] %3d%% sentence %d",
                   std::string(percent * 40 / 100, '#').c_str(), percent, last_sentence + 1);
    }
  }
  if (progress_total > 0) std::fprintf(stderr, "\n");
}

int run_say(const SayOptions& o) {
  if (o.raw && !o.output.empty()) {
    std::cerr << "tts say: --raw and -o are exclusive\n";
    return kExitUsage;
  }
  if (!o.file.empty() && !o.words.empty()) {
    std::cerr << "tts say: give the text either as arguments or with -f, not both\n";
    return kExitUsage;
  }
  if (o.language_given)
    if (const auto problem = engine::language_tag_problem(o.synthesis.language)) {
      std::cerr << "tts say: --lang: " << *problem << "\n";
      return kExitUsage;
    }
  if (const auto twice = output_named_twice({{"-o", o.output}, {"--timings", o.timings}})) {
    std::cerr << "tts say: " << frontend::printable(*twice) << "\n";
    return kExitUsage;
  }
  if (!o.output.empty()) {
    try {  // a format say cannot write is a wrong option, like the others above
      audio::check_audio_extension(o.output);
    } catch (const audio::AudioError& e) {
      std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
      return kExitUsage;
    }
  }
  // Ctrl-C or a kill while a file is written leaves no temporary behind.
  if (!o.output.empty() || !o.timings.empty()) remove_temporaries_on_signal({o.output, o.timings});
  // The voice first: without one there is nothing else to check.
  std::filesystem::path folder;
  const std::string& language = o.synthesis.language;
  if (!language.empty() && !o.voice_given) {  // the installed voice that speaks the language
    std::vector<std::filesystem::path> folders;
    std::vector<std::vector<std::string>> spoken;
    std::optional<std::size_t> default_voice;
    for (const auto& f : engine::list_voices()) {
      try {
        spoken.push_back(engine::read_voice_info(f).languages);
      } catch (const engine::VoiceError&) {
        continue;  // `tts voices` says what is wrong with it
      }
      if (f.filename() == "default") default_voice = folders.size();
      folders.push_back(f);
    }
    const auto found = engine::voice_for_language(language, spoken, default_voice);
    if (!found) {
      std::cerr << "tts say: --lang " << frontend::printable(language)
                << ": no installed voice speaks it ("
                << (folders.empty() ? "no voices are installed"
                                    : "the voices speak " + engine::languages_spoken(spoken))
                << "; `tts voices` lists them)\n";
      return kExitBadInput;
    }
    folder = folders[*found];
  } else {
    try {
      folder = engine::resolve_voice(o.voice);
    } catch (const engine::VoiceError& e) {
      if (o.voice == "default" && !engine::find_voice(o.voice)) {
        std::cerr << "tts say: no voice installed yet (looked for \"default\" in";
        for (const auto& f : engine::voice_search_path()) std::cerr << " " << f.string();
        std::cerr << "; TTS_VOICE_PATH adds folders)\n";
      } else
        std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
      return kExitBadInput;
    }
  }
  try {  // the CUDA library is loaded here, and only here, when asked for
    kernels::require_device(o.device);
  } catch (const std::exception& e) {
    std::cerr << "tts say: --device " << kernels::to_string(o.device) << ": "
              << frontend::printable(e.what()) << "\n";
    return kExitFailure;
  }
  std::shared_ptr<const engine::Voice> voice;
  try {
    voice = engine::Voice::load(folder, o.weights);
  } catch (const std::exception& e) {
    std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
    return kExitBadInput;
  }
  if (!language.empty() && !voice->text().find_language(language)) {
    std::cerr << "tts say: --lang " << frontend::printable(language) << ": voice \""
              << voice->info().name << "\" does not speak it (it speaks "
              << voice->info().languages_text() << "); leave out --voice to choose one that does\n";
    return kExitBadInput;
  }

  std::unique_ptr<Sink> sink;
  if (o.raw) {
    sink = std::make_unique<RawSink>();
  } else if (!o.output.empty()) {
    try {  // a path that cannot be written fails now, before any audio is made
      sink = std::make_unique<FileSink>(o.output, voice->sample_rate());
    } catch (const audio::AudioError& e) {
      std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
      return kExitFailure;
    }
  } else {
    try {
      sink = std::make_unique<SpeakerSink>(voice->sample_rate());
    } catch (const audio::NoAudioDeviceError& e) {
      std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
      return kExitNoDevice;
    }
  }

  std::unique_ptr<TimingsSink> timed;
  if (!o.timings.empty()) {
    timed = std::make_unique<TimingsSink>(*sink, o.timings, voice->sample_rate());
  }
  Sink& out = timed ? static_cast<Sink&>(*timed) : *sink;

  engine::SynthesisStream stream(voice);
  try {
    const bool terminal = isatty(STDERR_FILENO) && !o.output.empty();
    if (!o.words.empty() || !o.file.empty()) {
      std::string text;
      if (!o.file.empty()) {
        std::ifstream in(o.file, std::ios::binary);
        if (!in) {
          std::cerr << "tts say: " << frontend::printable(o.file) << ": cannot open\n";
          return kExitBadInput;
        }
        std::ostringstream all;
        all << in.rdbuf();
        text = all.str();
      } else {
        for (const auto& w : o.words) text += (text.empty() ? "" : " ") + w;
      }
      speak(stream, text, o, out, timed.get(), terminal && text.size() > 300 ? text.size() : 0);
    } else {
      // stdin, one line at a time: each line is spoken as soon as it is read.
      std::string line;
      bool first = true;
      const std::vector<float> gap(static_cast<std::size_t>(
          o.synthesis.sentence_silence * static_cast<float>(voice->sample_rate())));
      for (std::size_t number = 1; std::getline(std::cin, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (!first && !gap.empty()) out.write(gap.data(), gap.size());
        first = false;
        try {
          speak(stream, line, o, out, timed.get(), 0);
        } catch (const engine::SynthesisInputError& e) {
          // Each line is a text of its own, so the positions in the message count from the
          // line's start: say which line.
          throw engine::SynthesisInputError("stdin line " + std::to_string(number) + ": " +
                                            e.what());
        }
      }
    }
    out.finish();
  } catch (const engine::SynthesisInputError& e) {
    std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tts say: " << frontend::printable(e.what()) << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void register_say(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SayOptions>();
  CLI::App* cmd = app.add_subcommand("say", "Speak text through the speakers or into a file");
  cmd->add_option("text", o->words, "Text to speak (default: -f FILE, else stdin line by line)");
  cmd->add_option("-f,--file", o->file, "Read the text from FILE");
  CLI::Option* voice_option =
      cmd->add_option("--voice", o->voice, "Voice name or folder")->capture_default_str();
  CLI::Option* language_option = cmd->add_option(
      "--lang", o->synthesis.language,
      "Language of the text, a BCP 47 tag (en-US, es-MX, es): without --voice, the "
      "installed voice that speaks it reads it; with one, that voice must speak it (not empty: "
      "leave --lang out for the voice's own)");
  cmd->add_option("-o,--output", o->output,
                  "Write audio to FILE (.wav, .flac, .ogg, .opus or .mp3)");
  cmd->add_flag("--raw", o->raw, "Write raw signed 16-bit little-endian mono PCM to stdout");
  cmd->add_option("--timings", o->timings,
                  "Also write when each phoneme sounds in the output (TSV: sentence, index, "
                  "symbol, start_s, end_s; | is a word boundary, ^ and $ a sentence's edges; "
                  "an SSML <mark> is a row with index \"mark\" and its name; another file than "
                  "-o's)");
  cmd->add_flag("--ssml", o->ssml, "The text is SSML (<speak>...</speak>)");
  auto& s = o->synthesis;
  // The engine's own check decides the range, (0, 10], so the CLI and the C API agree.
  const CLI::Validator engine_rate(
      [](std::string& text) -> std::string {
        engine::SynthesisOptions probe;
        char* end = nullptr;
        probe.rate = std::strtof(text.c_str(), &end);
        if (text.empty() || *end != '\0') return "not a number: " + text;
        try {
          probe.validate();
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return {};
      },
      "FLOAT in (0, 10]");
  cmd->add_option("--rate", s.rate, "Speaking rate (2 = twice as fast)")
      ->check(engine_rate)
      ->capture_default_str();
  cmd->add_option("--pitch", s.pitch_semitones, "Pitch shift in semitones")
      ->check(CLI::Range(-24.0f, 24.0f))
      ->capture_default_str();
  cmd->add_option("--volume", s.volume, "Volume multiplier")
      ->check(CLI::Range(0.0f, 100.0f))
      ->capture_default_str();
  cmd->add_option("--sentence-silence", s.sentence_silence, "Seconds of silence between sentences")
      ->check(CLI::Range(0.0f, 60.0f))
      ->capture_default_str();
  cmd->add_option("--seed", s.seed, "Sampling seed (same seed, same audio)")
      ->capture_default_str()
      ->check(seed_validator());
  cmd->add_option("--temperature", s.temperature, "Vocoder sampling temperature (0 = arg-max)")
      ->check(CLI::Range(0.0f, 10.0f))
      ->capture_default_str();
  cmd->add_option("--threads", s.threads, "Vocoder threads")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  add_device_option(*cmd, o->device, "Where the vocoder samples");
  add_weights_option(*cmd, o->weights);
  cmd->footer(
      "Exit codes: 0 success, 1 synthesis or output failure (and --device cuda where CUDA is\n"
      "unavailable), 2 usage error, 3 bad input (text, SSML, file, or a voice that is missing or\n"
      "damaged), 4 no audio output device (write to a file with -o FILE instead).\n"
      "Interrupted (Ctrl-C, SIGTERM), it removes the files it was writing and ends by the signal.\n"
      "Control characters of the input that a message quotes are shown escaped (\\x1B).");
  cmd->callback([o, voice_option, language_option, &exit_code] {
    o->voice_given = voice_option->count() > 0;
    o->language_given = language_option->count() > 0;
    exit_code = run_say(*o);
  });
}

}  // namespace tts::cli
