// `tts voices create`'s own parts: the intake (every kind of bad row skipped and named, the kept
// audio trimmed, levelled and resampled), the held-out choice (deterministic) and the training
// plan (the steps that fit a budget), the word error rate and the recogniser behind it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>

#include "speech_like.h"
#include "temp_folder.h"
#include "tts/audio/audio_file.h"
#include "tts/voice_creation/held_out.h"
#include "tts/voice_creation/intake.h"
#include "tts/voice_creation/pitch_fit.h"
#include "tts/voice_creation/praat.h"
#include "tts/voice_creation/recogniser.h"
#include "tts/voice_creation/training_plan.h"
#include "tts/voice_creation/vocoder_fit.h"
#include "tts/voice_creation/word_errors.h"

namespace tts::creation {
namespace {

namespace fs = std::filesystem;
using testing_support::speech_like;
using testing_support::TempFolder;

void write_wav(const fs::path& path, const std::vector<float>& samples, int rate) {
  audio::write_audio(path, samples.data(), samples.size(), rate);
}

// 16-bit PCM WAV of two interleaved channels (the engine writes mono only).
void write_stereo_wav(const fs::path& path, const std::vector<float>& interleaved, int rate) {
  std::ofstream out(path, std::ios::binary);
  auto put = [&](uint32_t value, int bytes) {
    for (int b = 0; b < bytes; ++b) out.put(static_cast<char>((value >> (8 * b)) & 0xFF));
  };
  const auto data = static_cast<uint32_t>(interleaved.size() * 2);
  out << "RIFF";
  put(36 + data, 4);
  out << "WAVEfmt ";
  put(16, 4);
  put(1, 2);  // PCM
  put(2, 2);  // channels
  put(static_cast<uint32_t>(rate), 4);
  put(static_cast<uint32_t>(rate) * 4, 4);
  put(4, 2);
  put(16, 2);
  out << "data";
  put(data, 4);
  for (float s : interleaved)
    put(static_cast<uint16_t>(
            static_cast<int16_t>(std::lround(std::clamp(s, -1.0f, 1.0f) * 32767.0f))),
        2);
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

double rms_dbfs(const std::vector<float>& x) {
  double sum = 0.0;
  for (float s : x) sum += double(s) * s;
  return 10.0 * std::log10(sum / static_cast<double>(x.size()));
}

const std::vector<std::string>& kTexts = testing_support::prompt_texts();

class VoiceIntake : public ::testing::Test {
 protected:
  // A folder of recordings each with its .txt: `good` good ones, then one of every bad kind.
  void write_folder_corpus(int good) {
    fs::create_directories(data_);
    for (int i = 0; i < good; ++i) {
      const std::string id = "good" + std::to_string(100 + i);
      write_wav(data_ / (id + ".wav"), speech_like(2.0, 22050), 22050);
      write_text(data_ / (id + ".txt"), kTexts[i % 6]);
    }
    std::ofstream(data_ / "garbage.wav") << "this is not audio";
    write_text(data_ / "garbage.txt", kTexts[0]);
    write_wav(data_ / "notext.wav", speech_like(2.0, 16000), 16000);
    write_wav(data_ / "emptytext.wav", speech_like(2.0, 16000), 16000);
    write_text(data_ / "emptytext.txt", "  ...  ");
    write_text(data_ / "noaudio.txt", kTexts[1]);
    std::vector<float> loud = speech_like(2.0, 16000, 0.5, 4.0f);
    for (float& s : loud) s = std::clamp(s, -1.0f, 1.0f);
    write_wav(data_ / "clipped.wav", loud, 16000);
    write_text(data_ / "clipped.txt", kTexts[2]);
    write_wav(data_ / "silent.wav", std::vector<float>(32000, 0.0f), 16000);
    write_text(data_ / "silent.txt", kTexts[3]);
    write_wav(data_ / "tooshort.wav", speech_like(0.1, 16000, 0.2), 16000);
    write_text(data_ / "tooshort.txt", "Hi.");
    write_wav(data_ / "toolong.wav", speech_like(25.0, 16000, 0.2), 16000);
    write_text(data_ / "toolong.txt", kTexts[4]);
    write_wav(data_ / "wrongtext.wav", speech_like(2.0, 16000), 16000);
    write_text(data_ / "wrongtext.txt",
               "This transcript belongs to a much longer recording than this one, with many "
               "more words in it than two seconds could ever hold when read aloud.");
    write_wav(data_ / "slowtext.wav", speech_like(12.0, 16000), 16000);
    write_text(data_ / "slowtext.txt", "Yes.");
    const std::vector<float> mono = speech_like(2.0, 16000);
    std::vector<float> interleaved;
    for (float s : mono) interleaved.insert(interleaved.end(), {s, 0.9f * s});
    write_stereo_wav(data_ / "stereo.wav", interleaved, 16000);
    write_text(data_ / "stereo.txt", kTexts[0]);
    write_wav(data_ / "narrowband.wav", speech_like(2.0, 8000), 8000);
    write_text(data_ / "narrowband.txt", kTexts[5]);
  }

  IntakeOptions options() {
    IntakeOptions o;
    o.data_dir = data_;
    o.out_dir = root_.path() / "corpus";
    o.language = "en-us";
    return o;
  }

  TempFolder root_{"tts-intake-"};
  fs::path data_ = root_.path() / "recordings";
};

TEST_F(VoiceIntake, SkipsEveryBadRowNamingItsFileAndReason) {
  write_folder_corpus(12);
  const IntakeReport r = run_intake(options());
  const std::map<std::string, std::size_t> expected = {{"unreadable audio", 1},
                                                       {"missing transcript", 1},
                                                       {"no words in the transcript", 1},
                                                       {"missing audio", 1},
                                                       {"clipped", 1},
                                                       {"silent", 1},
                                                       {"too short or too long", 2},
                                                       {"speaking rate far from the corpus's", 2}};
  EXPECT_EQ(r.skipped, expected);
  EXPECT_EQ(r.kept.size(), 14u);  // the 12 good ones, the stereo and the narrowband one
  EXPECT_EQ(r.rows_read, 24u);
  for (const char* name :
       {"garbage.wav", "notext.wav", "emptytext.wav", "noaudio.txt", "clipped.wav", "silent.wav",
        "tooshort.wav", "toolong.wav", "wrongtext.wav", "slowtext.wav"}) {
    const bool named =
        std::any_of(r.skip_lines.begin(), r.skip_lines.end(),
                    [&](const std::string& l) { return l.find(name) != std::string::npos; });
    EXPECT_TRUE(named) << name << " is not named among the skipped rows";
  }
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("narrowband.wav"), std::string::npos);
  EXPECT_NE(r.warnings[0].find("8000 Hz"), std::string::npos);
  EXPECT_NE(r.warnings[1].find("stereo.wav: kept, its 2 channels mixed down"), std::string::npos);
  const std::string summary = format_intake_summary(r);
  EXPECT_NE(summary.find("clipped"), std::string::npos);
  EXPECT_NE(summary.find("14 rows"), std::string::npos);
}

TEST_F(VoiceIntake, KeptAudioIsTrimmedLevelledAndAtTheVoiceRate) {
  write_folder_corpus(12);
  const IntakeReport r = run_intake(options());
  std::ifstream meta(root_.path() / "corpus" / "metadata.csv");
  std::string line;
  ASSERT_TRUE(std::getline(meta, line));
  EXPECT_EQ(line, "good100|" + std::string(kTexts[0]));
  const audio::Audio kept = audio::read_audio(root_.path() / "corpus" / "wavs" / "good100.wav");
  EXPECT_EQ(kept.sample_rate, 16000);
  // 2 s of sound with 0.5 s of silence either side: 0.15 s of each silence is left.
  EXPECT_NEAR(static_cast<double>(kept.samples.size()) / 16000.0, 2.3, 0.03);
  // The loud part at about -20 dBFS (the silence left around it lowers the whole file's level).
  EXPECT_NEAR(rms_dbfs(kept.samples), -20.0 + 10.0 * std::log10(2.0 / 2.3), 1.0);
  const auto row = std::find_if(r.kept.begin(), r.kept.end(),
                                [](const IntakeRow& k) { return k.id == "narrowband"; });
  ASSERT_NE(row, r.kept.end());
  EXPECT_EQ(row->source_rate, 8000);
}

TEST_F(VoiceIntake, ReadsAnLjspeechFolderAndNamesItsLines) {
  fs::create_directories(data_ / "wavs");
  std::ofstream meta(data_ / "metadata.csv");
  for (int i = 0; i < 11; ++i) {
    const std::string id = "row" + std::to_string(i);
    write_wav(data_ / "wavs" / (id + ".wav"), speech_like(2.0, 16000), 16000);
    meta << id << "|" << kTexts[i % 6] << "\n";
  }
  meta << "row3|A second row with the same id.\n"
       << "gone|Its audio is missing.\n"
       << "no bar here\n";
  meta.close();
  const IntakeReport r = run_intake(options());
  EXPECT_EQ(r.kept.size(), 11u);
  EXPECT_EQ(r.skipped.at("duplicate id"), 1u);
  EXPECT_EQ(r.skipped.at("missing audio"), 1u);
  EXPECT_EQ(r.skipped.at("malformed row"), 1u);
  for (const char* where : {"metadata.csv:12", "metadata.csv:13", "metadata.csv:14"}) {
    const bool named =
        std::any_of(r.skip_lines.begin(), r.skip_lines.end(),
                    [&](const std::string& l) { return l.find(where) != std::string::npos; });
    EXPECT_TRUE(named) << where;
  }
}

TEST_F(VoiceIntake, TooLittleAudioSaysHowMuchMoreToRecord) {
  write_folder_corpus(12);
  const IntakeReport r = run_intake(options());
  try {
    require_enough_audio(r, 5.0);
    FAIL() << "under a minute of speech was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("record about 5 minutes more"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(require_enough_audio(r, 0.1));
}

TEST_F(VoiceIntake, ANonFolderIsAnError) {
  IntakeOptions o = options();
  o.data_dir = root_.path() / "nothing-here";
  EXPECT_THROW(run_intake(o), std::runtime_error);
}

TEST(HeldOut, TheChoiceDependsOnTheIdsAndSeedAloneAndKeepsItsRules) {
  std::vector<std::string> ids;
  for (int i = 0; i < 500; ++i) ids.push_back("prompt-" + std::to_string(i));
  const std::vector<std::string> chosen = choose_held_out(ids, 1);
  EXPECT_EQ(chosen.size(), 25u);  // 5% of 500
  EXPECT_TRUE(std::is_sorted(chosen.begin(), chosen.end()));
  std::vector<std::string> shuffled = ids;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  EXPECT_EQ(choose_held_out(shuffled, 1), chosen);
  EXPECT_NE(choose_held_out(ids, 2), chosen);
  // A row more moves at most one prompt in or out.
  ids.push_back("prompt-extra");
  const std::vector<std::string> more = choose_held_out(ids, 1);
  std::vector<std::string> common;
  std::set_intersection(chosen.begin(), chosen.end(), more.begin(), more.end(),
                        std::back_inserter(common));
  EXPECT_GE(common.size(), chosen.size() - 1);
  // At least 20, but never more than a quarter of a small corpus.
  EXPECT_EQ(choose_held_out(std::vector<std::string>(ids.begin(), ids.begin() + 200), 1).size(),
            20u);
  EXPECT_EQ(choose_held_out(std::vector<std::string>(ids.begin(), ids.begin() + 40), 1).size(),
            10u);
}

TEST(TrainingPlan, GivesTrainingWhatTheBudgetLeavesWithinItsBounds) {
  PlanInputs in;
  in.elapsed_seconds = 10.0;
  in.seconds_per_step = 0.2;
  in.load_seconds = 3.0;
  in.held_out_seconds = 60.0;
  in.threads = 2;
  // After training: the corpus read twice, 20 s of scoring and packing, and four times the
  // held-out audio synthesised (three pitch trials, the report) on two threads.
  in.budget_seconds = 400.0;
  TrainingPlan p = plan_training(in);
  EXPECT_DOUBLE_EQ(p.reserved_seconds, 2 * 3.0 + 20.0 + 4 * 60.0 * 0.8 / 2);
  EXPECT_EQ(p.steps, 1260);  // (0.95 · 400 − 10 − 122) / 0.2 more than the 20 timed ones
  EXPECT_LE(p.elapsed_seconds + p.training_seconds + p.reserved_seconds, 0.95 * 400.0 + 0.2);
  EXPECT_FALSE(p.over_budget);
  EXPECT_NE(describe_plan(p).find("1260 training steps"), std::string::npos) << describe_plan(p);
  EXPECT_NE(describe_plan(p).find("within the 7 min budget"), std::string::npos);
  // A long budget stops at the most steps that still help, a short one at the fewest that make
  // a voice, and says it does not fit.
  in.budget_seconds = 3600.0;
  p = plan_training(in);
  EXPECT_EQ(p.steps, kMaximumSteps);
  // What the most steps leave of the budget is said, for the vocoder.
  EXPECT_NEAR(p.leftover_seconds, 0.95 * 3600.0 - 10 - 122 - 1480 * 0.2, 1e-6);
  EXPECT_NE(describe_plan(p).find("the 49.9 min left of it go to fine-tuning the vocoder"),
            std::string::npos)
      << describe_plan(p);
  in.budget_seconds = 60.0;
  p = plan_training(in);
  EXPECT_EQ(p.steps, kMinimumSteps);
  EXPECT_TRUE(p.over_budget);
  EXPECT_NE(describe_plan(p).find("over the budget"), std::string::npos);
  // Steps given are kept, and the plan says so.
  in.fixed_steps = 40;
  p = plan_training(in);
  EXPECT_EQ(p.steps, 40);
  EXPECT_TRUE(p.fixed);
  EXPECT_DOUBLE_EQ(p.training_seconds, 20 * 0.2);
  EXPECT_EQ(p.leftover_seconds, 0.0);
  const TrainingPlan again = nlohmann::json(p).get<TrainingPlan>();
  EXPECT_EQ(again.steps, p.steps);
  EXPECT_DOUBLE_EQ(again.reserved_seconds, p.reserved_seconds);
}

TEST(VocoderPlan, FineTunesTheVocoderInWhatTheBudgetLeavesOrSaysWhyNot) {
  VocoderPlanInputs in;
  in.held_out_seconds = 60.0;
  in.threads = 2;
  in.load_seconds = 5.0;
  in.seconds_per_step = 0.5;
  // Set aside: the pitch fit that follows (the corpus read, 20 s, and the held-out audio three
  // times at 0.8 on two threads), the report (20 s and the audio once) and the judging of both
  // vocoders (20 s and the audio twice): 97 + 44 + 68 = 209 s, then the vocoder's corpus read.
  in.budget_seconds = 2000.0;  // aimed 0.95 into: 1900
  in.elapsed_seconds = 1400.0;
  EXPECT_TRUE(vocoder_worth_timing(in));
  VocoderPlan p = plan_vocoder(in);
  EXPECT_EQ(p.steps, 582);  // (1900 − 1400 − 209 − 5) / 0.5, and the 10 timed ones
  EXPECT_TRUE(p.why.empty()) << p.why;
  // A long budget stops at the most steps that helped.
  in.elapsed_seconds = 0.0;
  EXPECT_EQ(plan_vocoder(in).steps, kMaximumVocoderSteps);
  // Time for fewer than the fewest: none, and why.
  in.elapsed_seconds = 1900.0 - 209.0 - 5.0 - 125.0;
  p = plan_vocoder(in);
  EXPECT_EQ(p.steps, 0);
  EXPECT_NE(p.why.find("time for 260 of the 300 steps"), std::string::npos) << p.why;
  // Nothing left: not even worth timing the steps.
  in.elapsed_seconds = 1850.0;
  EXPECT_FALSE(vocoder_worth_timing(in));
  in.seconds_per_step = 0.0;
  p = plan_vocoder(in);
  EXPECT_EQ(p.steps, 0);
  EXPECT_NE(p.why.find("too little to fine-tune it"), std::string::npos) << p.why;
}

TEST(VocoderChoice, RoundTripsThroughJsonAndSaysWhatWasChosen) {
  VocoderChoice c;
  c.steps = 900;
  c.why = "nearer the recordings on the held-out prompts";
  c.shared = CopySynthesisScore{0.5, 13.25};
  c.tuned = CopySynthesisScore{0.45, std::nullopt};
  c.tuned_kept = true;
  const VocoderChoice again = nlohmann::json(c).get<VocoderChoice>();
  EXPECT_EQ(again.steps, 900);
  EXPECT_EQ(again.why, c.why);
  ASSERT_TRUE(again.shared && again.tuned);
  EXPECT_DOUBLE_EQ(again.shared->mel_distance, 0.5);
  EXPECT_DOUBLE_EQ(*again.shared->hnr_db, 13.25);
  EXPECT_FALSE(again.tuned->hnr_db);
  EXPECT_TRUE(again.tuned_kept);
  EXPECT_NE(again.describe().find("fine-tuned 900 steps on the recordings, kept"),
            std::string::npos)
      << again.describe();
  EXPECT_NE(again.describe().find("shared log-mel distance 0.500, HNR 13.25 dB"), std::string::npos)
      << again.describe();
  const VocoderChoice none{0, "the budget leaves 1.0 min", {}, {}, false};
  EXPECT_EQ(nlohmann::json(none).get<VocoderChoice>().describe(),
            "the shared vocoder as it is: the budget leaves 1.0 min");
}

TEST(PitchFit, PoolsTheVoicedFramesOfEveryTrackInSemitones) {
  // 100 and 200 Hz are 0 and 12 semitones re 100 Hz: their sample SD is 6·√2. Unvoiced frames
  // (0 Hz) count for nothing, and one voiced frame is no spread.
  EXPECT_NEAR(pooled_f0_sd_semitones({{100.0f, 0.0f}, {0.0f, 200.0f}}), 6.0 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(pooled_f0_sd_semitones({{100.0f, 100.0f, 100.0f}}), 0.0, 1e-9);
  EXPECT_EQ(pooled_f0_sd_semitones({{150.0f, 0.0f}, {}}), 0.0);
}

TEST(PitchRange, IsTheRecordingsQuartilesWidenedAndLeavesATrackersOctaveErrorsOut) {
  // A speaker around 100 Hz (90 to 110 evenly): quartiles 95 and 105, so 71.25 to 157.5 Hz.
  std::vector<float> recorded;
  for (int f = 0; f <= 200; ++f) recorded.push_back(90.0f + 0.1f * static_cast<float>(f));
  std::vector<double> hz(recorded.begin(), recorded.end());
  hz.push_back(0.0);  // unvoiced frames do not count
  const PitchRange range = speaker_pitch_range(hz);
  EXPECT_NEAR(range.floor_hz, 0.75 * 95.0, 1e-4);
  EXPECT_NEAR(range.ceiling_hz, 1.5 * 105.0, 1e-4);
  // The same pitch with one frame in twenty where the tracker found three times the F0: its
  // spread over every frame is several times the speaker's, within the range it is the speaker's.
  std::vector<float> rough = recorded;
  for (std::size_t f = 0; f < rough.size(); f += 20) rough[f] *= 3.0f;
  const double speaker = pooled_f0_sd_semitones({recorded});
  EXPECT_GT(pooled_f0_sd_semitones({rough}), 3.0 * speaker);
  EXPECT_NEAR(pooled_f0_sd_semitones({rough}, range), speaker, 0.05 * speaker);
  // Praat's measures pool the same way.
  PraatMeasure measured;
  measured.f0.assign(rough.begin(), rough.end());
  EXPECT_NEAR(*pool_measures({measured}, range).f0_sd_semitones, speaker, 0.05 * speaker);
  EXPECT_GT(*pool_measures({measured}).f0_sd_semitones, 3.0 * speaker);
  EXPECT_EQ(voiced_frames({measured, measured}).size(), 2 * rough.size());
  // Too few frames to know a range: every frame counts.
  const PitchRange none = speaker_pitch_range({100.0, 200.0, 0.0});
  EXPECT_FALSE(none.bounded());
  EXPECT_TRUE(none.contains(1000.0));
}

TEST(PitchFit, LeavesTheCalibratedSpreadOnlyForATrialClearlyNearerTheRecordings) {
  // Recordings at 4.0 semitones; the calibrated spread 1.5 made the voice 3.0.
  const std::vector<PitchTrial> heard = {{1.5, 3.0}, {2.0, 3.6}, {2.3, 3.9}};
  EXPECT_DOUBLE_EQ(kept_spread(heard, 4.0, 0.25), 2.3);
  // Trials that barely moved the voice's spread (the vocoder's jitter, not the contour) leave the
  // calibration, however the ties fall.
  const std::vector<PitchTrial> jitter = {{1.47, 2.13}, {0.98, 2.27}, {2.20, 2.12}};
  EXPECT_DOUBLE_EQ(kept_spread(jitter, 1.31, 0.25), 1.47);
  EXPECT_DOUBLE_EQ(kept_spread({{1.5, 4.1}}, 4.0, 0.25), 1.5);
}

TEST(PitchFit, TheBootstrapSaysHowLooselyAFewPromptsMeasureTheDifference) {
  // Prompts whose own pitch ranges differ, the voice's each a little off the recording's.
  std::mt19937 random(7);
  std::normal_distribution<float> semitones(0.0f, 3.0f);
  auto prompts = [&](int count, std::vector<std::vector<float>>& voice,
                     std::vector<std::vector<float>>& recordings) {
    for (int p = 0; p < count; ++p) {
      const float centre = 150.0f * std::exp2(semitones(random) / 12.0f);
      const float stretch = 1.0f + 0.3f * std::fabs(semitones(random)) / 3.0f;
      std::vector<float> said, recorded;
      for (int f = 0; f < 40 + 20 * (p % 5); ++f) {
        const float st = semitones(random);
        recorded.push_back(centre * std::exp2(st / 12.0f));
        said.push_back(centre * std::exp2(stretch * st / 12.0f));
      }
      voice.push_back(said);
      recordings.push_back(recorded);
    }
  };
  std::vector<std::vector<float>> few_voice, few_recordings, many_voice, many_recordings;
  prompts(12, few_voice, few_recordings);
  prompts(96, many_voice, many_recordings);
  const double few = paired_spread_standard_error(few_voice, few_recordings, 1, 400);
  const double many = paired_spread_standard_error(many_voice, many_recordings, 1, 400);
  EXPECT_GT(few, 0.0);
  EXPECT_LT(many, few);  // eight times the prompts: near a third of the error
  EXPECT_GT(many, few / 6.0);
  // Seeded, and nothing to be unsure of when the voice is the recordings.
  EXPECT_EQ(paired_spread_standard_error(few_voice, few_recordings, 1, 400), few);
  EXPECT_EQ(paired_spread_standard_error(few_recordings, few_recordings, 1, 400), 0.0);
  EXPECT_EQ(paired_spread_standard_error({few_voice[0]}, {few_recordings[0]}, 1, 400), 0.0);
}

TEST(WordErrors, WordsAreLowercasedWithoutPunctuationOrRecogniserMarkup) {
  EXPECT_EQ(words_for_scoring("<s> Hello, WORLD! [NOISE] it's  (2) well-known </s>"),
            (std::vector<std::string>{"hello", "world", "its", "well", "known"}));
  EXPECT_EQ(words_for_scoring("\u201cQuoted\u201d \u2014 don\u2019t\u2026 \u00abcaf\u00e9\u00bb"),
            (std::vector<std::string>{"quoted", "dont", "caf\u00e9"}));
  EXPECT_TRUE(words_for_scoring(" ... ").empty());
}

TEST(WordErrors, CountsEachKindOfErrorAgainstAHandAlignment) {
  const auto w = [](const char* text) { return words_for_scoring(text); };
  // Reference "the cat sat on the mat": "a" for "the" (substitution), "on" dropped (deletion),
  // "down" added (insertion).
  const WordErrors e = count_word_errors(w("the cat sat on the mat"), w("a cat sat down the mat"));
  EXPECT_EQ(e.words, 6);
  EXPECT_EQ(e.errors(), 2);  // "on" -> "down" is one substitution, cheaper than a delete+insert
  EXPECT_EQ(e.substitutions, 2);
  const WordErrors d = count_word_errors(w("one two three four"), w("one three"));
  EXPECT_EQ(d.deletions, 2);
  EXPECT_EQ(d.substitutions + d.insertions, 0);
  EXPECT_DOUBLE_EQ(d.rate(), 0.5);
  const WordErrors i = count_word_errors(w("yes"), w("oh yes yes"));
  EXPECT_EQ(i.insertions, 2);
  EXPECT_DOUBLE_EQ(i.rate(), 2.0);
  EXPECT_EQ(count_word_errors(w("same words"), w("Same, words.")).errors(), 0);
  WordErrors pooled = d;
  pooled += i;
  EXPECT_EQ(pooled.words, 5);
  EXPECT_EQ(pooled.errors(), 4);
}

TEST(Recogniser, ActiveLevelIgnoresSilenceAndFollowsGain) {
  const int rate = 16000;
  std::vector<float> tone(rate);
  for (int i = 0; i < rate; ++i) tone[i] = 0.5f * std::sin(2.0f * 3.14159265f * 200.0f * i / rate);
  const double level = active_speech_level_dbov(tone, rate);
  EXPECT_NEAR(level, 20.0 * std::log10(0.5 / std::sqrt(2.0)), 0.05);
  std::vector<float> padded(3 * rate, 0.0f);
  std::copy(tone.begin(), tone.end(), padded.begin() + rate);
  EXPECT_NEAR(active_speech_level_dbov(padded, rate), level, 0.05);  // silence does not count
  for (float& s : tone) s *= 0.1f;
  EXPECT_NEAR(active_speech_level_dbov(tone, rate), level - 20.0, 0.05);
  EXPECT_TRUE(std::isinf(active_speech_level_dbov(std::vector<float>(rate, 0.0f), rate)));
}

// Real recorded speech through the real recogniser: what it hears is close to the transcript, at
// any level and any rate the file comes in (a fiftieth of the level at 16 bits loses detail, so
// the two hearings need not be the same words).
TEST(Recogniser, HearsRecordedEnglishSpeechAtAnyLevelAndRate) {
  if (const auto missing = recogniser_missing()) GTEST_SKIP() << *missing;
  const fs::path data = "/usr/share/pocketsphinx/test/data/librivox";
  const fs::path file = data / "sense_and_sensibility_01_austen_64kb-0880.wav";
  if (!fs::exists(file))
    GTEST_SKIP() << file << " is missing (Debian package pocketsphinx-testdata)";
  TempFolder here;
  audio::Audio speech = audio::read_audio(file);
  // The same words, far quieter and at 22.05 kHz: levelling and resampling make them alike.
  std::vector<float> quiet = audio::resample(speech.samples, speech.sample_rate, 22050);
  for (float& s : quiet) s *= 0.02f;
  write_wav(here.path() / "quiet.wav", quiet, 22050);
  const std::vector<std::string> heard =
      recognise_english({file, here.path() / "quiet.wav"}, here.path() / "work", 2);
  ASSERT_EQ(heard.size(), 2u);
  const std::vector<std::string> said = words_for_scoring("he was not an ill disposed young man");
  for (const std::string& h : heard) {
    const WordErrors e = count_word_errors(said, words_for_scoring(h));
    // pocketsphinx hears "an illness those" or "until this blows" for "an ill disposed"
    EXPECT_LE(e.rate(), 0.5) << h;
  }
}

}  // namespace
}  // namespace tts::creation
