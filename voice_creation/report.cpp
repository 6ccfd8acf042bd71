#include "tts/voice_creation/report.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include "fixed_point_text.h"
#include "parallel_for.h"
#include "tts/audio/audio_file.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/vocode.h"
#include "tts/engine/voice.h"
#include "tts/frontend/normalizer.h"
#include "tts/kernels/mel.h"
#include "tts/train/acoustic_score.h"
#include "tts/train/audio_corpus.h"
#include "tts/voice_creation/praat.h"
#include "tts/voice_creation/recogniser.h"
#include "tts/voice_creation/word_errors.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

constexpr double kHnrMargin = 1.5;
constexpr double kF0SpreadMargin = 0.6;
constexpr double kMelDistanceFactor = 1.25;
constexpr double kWordErrorMargin = 0.03;

std::string percent(double rate) { return fixed(100.0 * rate, 1) + "%"; }

// Why a Praat figure is missing: Praat did not run, or found too little voiced sound.
std::string unmeasured_because(const VoiceReport& r) {
  return r.praat_ran ? "Praat found too little voiced sound in the audio" : r.praat;
}

std::vector<Target> judge(const VoiceReport& r) {
  std::vector<Target> targets;
  Target hnr{"HNR of the voice ≥ copy-synthesis − 1.5 dB", "", std::nullopt};
  if (r.hnr_voice && r.hnr_copy) {
    hnr.figures = "voice " + fixed(*r.hnr_voice, 2) + " dB, copy-synthesis " +
                  fixed(*r.hnr_copy, 2) + " dB (needs ≥ " + fixed(*r.hnr_copy - kHnrMargin, 2) +
                  ")";
    hnr.passed = *r.hnr_voice >= *r.hnr_copy - kHnrMargin;
  } else {
    hnr.figures = "not measured: " + unmeasured_because(r);
  }
  targets.push_back(hnr);
  Target f0{"F0 spread within 0.6 semitones of the recordings'", "", std::nullopt};
  if (r.f0_sd_voice && r.f0_sd_recordings) {
    const double difference = *r.f0_sd_voice - *r.f0_sd_recordings;
    f0.figures = "voice " + fixed(*r.f0_sd_voice, 2) + ", recordings " +
                 fixed(*r.f0_sd_recordings, 2) + " semitones (difference " +
                 (difference >= 0 ? "+" : "") + fixed(difference, 2) + ")";
    if (r.f0_floor_hz && r.f0_ceiling_hz)
      f0.figures += ", within the recordings' range of " + fixed(*r.f0_floor_hz, 0) + " to " +
                    fixed(*r.f0_ceiling_hz, 0) + " Hz";
    f0.passed = std::fabs(difference) <= kF0SpreadMargin;
  } else {
    f0.figures = "not measured: " + unmeasured_because(r);
  }
  targets.push_back(f0);
  Target mel{"aligned log-mel distance ≤ 1.25 × the bundled voice's own", "", std::nullopt};
  if (r.reference_mel_distance) {
    const double limit = kMelDistanceFactor * *r.reference_mel_distance;
    mel.figures = fixed(r.mel_distance, 3) + ", bundled voice " +
                  fixed(*r.reference_mel_distance, 3) + " (needs ≤ " + fixed(limit, 3) + ")";
    mel.passed = r.mel_distance <= limit;
  } else {
    mel.figures = fixed(r.mel_distance, 3) + "; no reference figure in the base";
  }
  targets.push_back(mel);
  targets.push_back({"real-time factor on one thread < 1",
                     fixed(r.real_time_factor, 3) + " (seconds of synthesis per second of audio)",
                     r.real_time_factor < 1.0});
  if (r.words_judged) {
    Target words{"word error rate ≤ the bundled default voice's + 3 points (pocketsphinx)", "",
                 std::nullopt};
    if (r.wer_voice && r.wer_reference_voice) {
      words.figures = "voice " + percent(*r.wer_voice) + ", default " +
                      percent(*r.wer_reference_voice) + ", recordings " +
                      (r.wer_recordings ? percent(*r.wer_recordings) : std::string("-")) +
                      ", copy-synthesis " + (r.wer_copy ? percent(*r.wer_copy) : std::string("-")) +
                      " of " + std::to_string(r.reference_words) + " words (needs ≤ " +
                      percent(*r.wer_reference_voice + kWordErrorMargin) + ")";
      words.passed = *r.wer_voice <= *r.wer_reference_voice + kWordErrorMargin + 1e-9;
    } else {
      words.figures = "not measured: " + r.recogniser;
    }
    targets.push_back(words);
  }
  return targets;
}

std::string praat_version() {
  FILE* pipe = popen("praat --version 2>&1", "r");
  if (!pipe) return "praat";
  char line[256] = {};
  const bool got = std::fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  std::string text = got ? line : "praat";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// What pocketsphinx hears in the recordings, their copy-synthesis, the new voice and the bundled
// voice, each against the prompt's text as the engine's normaliser reads it (digits as words).
void judge_words(VoiceReport& report, const std::vector<train::CorpusEntry>& prompts,
                 const fs::path& copy_dir, const fs::path& voice_dir, const fs::path& reference_dir,
                 const ReportInputs& in, const std::function<void(const std::string&)>& note) {
  constexpr std::size_t kKinds = 4;  // recording, copy-synthesis, voice, default
  std::vector<fs::path> files;
  for (const auto& p : prompts) {
    files.push_back(p.path);
    files.push_back(copy_dir / (p.id + ".wav"));
    files.push_back(voice_dir / (p.id + ".wav"));
    files.push_back(reference_dir / (p.id + ".wav"));
  }
  const std::vector<std::string> heard =
      recognise_english(files, in.work_dir / "recogniser", in.threads);
  WordErrors errors[kKinds];
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    const std::vector<std::string> said =
        words_for_scoring(frontend::normalize_text(prompts[i].text, in.espeak_voice));
    for (std::size_t k = 0; k < kKinds; ++k)
      errors[k] += count_word_errors(said, words_for_scoring(heard[kKinds * i + k]));
  }
  const WordErrors &recordings = errors[0], &copy = errors[1], &voice = errors[2],
                   &reference = errors[3];
  report.reference_words = voice.words;
  if (voice.words > 0) {
    report.wer_recordings = recordings.rate();
    report.wer_copy = copy.rate();
    report.wer_voice = voice.rate();
    report.wer_reference_voice = reference.rate();
  }
  report.recogniser = recogniser_version();
  note("pocketsphinx: word error rate of the voice " + percent(voice.rate()) +
       ", the bundled default voice " + percent(reference.rate()) + ", the recordings " +
       percent(recordings.rate()) + ", their copy-synthesis " + percent(copy.rate()) + " (" +
       std::to_string(voice.words) + " words)");
}

}  // namespace

bool VoiceReport::passed() const {
  for (const Target& t : targets)
    if (!t.passed || !*t.passed) return false;
  return !targets.empty();
}

void to_json(nlohmann::json& j, const VoiceReport& r) {
  auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  j = {{"prompts", r.prompts},
       {"seconds", r.seconds},
       {"hnr_db",
        {{"recordings", optional(r.hnr_recordings)},
         {"copy_synthesis", optional(r.hnr_copy)},
         {"voice", optional(r.hnr_voice)}}},
       {"f0_sd_semitones",
        {{"recordings", optional(r.f0_sd_recordings)},
         {"voice", optional(r.f0_sd_voice)},
         {"range_hz", {optional(r.f0_floor_hz), optional(r.f0_ceiling_hz)}}}},
       {"aligned_log_mel_distance", r.mel_distance},
       {"reference_log_mel_distance", optional(r.reference_mel_distance)},
       {"real_time_factor_one_thread", r.real_time_factor},
       {"praat", r.praat},
       {"praat_ran", r.praat_ran},
       {"words",
        {{"judged", r.words_judged},
         {"recogniser", r.recogniser},
         {"reference_words", r.reference_words},
         {"wer",
          {{"recordings", optional(r.wer_recordings)},
           {"copy_synthesis", optional(r.wer_copy)},
           {"voice", optional(r.wer_voice)},
           {"default_voice", optional(r.wer_reference_voice)}}}}},
       {"passed", r.passed()}};
  nlohmann::json targets = nlohmann::json::array();
  for (const Target& t : r.targets)
    targets.push_back({{"target", t.name},
                       {"figures", t.figures},
                       {"verdict", !t.passed   ? "NOT MEASURED"
                                   : *t.passed ? "PASS"
                                               : "FAIL"}});
  j["targets"] = targets;
}

void from_json(const nlohmann::json& j, VoiceReport& r) {
  auto optional = [](const nlohmann::json& v) {
    return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
  };
  j.at("prompts").get_to(r.prompts);
  j.at("seconds").get_to(r.seconds);
  r.hnr_recordings = optional(j.at("hnr_db").at("recordings"));
  r.hnr_copy = optional(j.at("hnr_db").at("copy_synthesis"));
  r.hnr_voice = optional(j.at("hnr_db").at("voice"));
  r.f0_sd_recordings = optional(j.at("f0_sd_semitones").at("recordings"));
  r.f0_sd_voice = optional(j.at("f0_sd_semitones").at("voice"));
  if (const auto& f0 = j.at("f0_sd_semitones"); f0.contains("range_hz")) {
    r.f0_floor_hz = optional(f0.at("range_hz").at(0));
    r.f0_ceiling_hz = optional(f0.at("range_hz").at(1));
  }
  j.at("aligned_log_mel_distance").get_to(r.mel_distance);
  r.reference_mel_distance = optional(j.at("reference_log_mel_distance"));
  j.at("real_time_factor_one_thread").get_to(r.real_time_factor);
  j.at("praat").get_to(r.praat);
  j.at("praat_ran").get_to(r.praat_ran);
  if (j.contains("words")) {
    const nlohmann::json& w = j.at("words");
    w.at("judged").get_to(r.words_judged);
    w.at("recogniser").get_to(r.recogniser);
    w.at("reference_words").get_to(r.reference_words);
    r.wer_recordings = optional(w.at("wer").at("recordings"));
    r.wer_voice = optional(w.at("wer").at("voice"));
    if (w.at("wer").contains("copy_synthesis"))
      r.wer_copy = optional(w.at("wer").at("copy_synthesis"));
    r.wer_reference_voice = optional(w.at("wer").at("default_voice"));
  }
  r.targets = judge(r);
}

VoiceReport judge_voice(const ReportInputs& in,
                        const std::function<void(const std::string&)>& note) {
  VoiceReport report;
  const std::shared_ptr<const engine::Voice> voice = engine::Voice::load(in.voice_dir);
  std::vector<std::string> warnings;
  std::vector<train::CorpusEntry> prompts = train::list_corpus(in.held_out_dir, warnings);
  if (prompts.empty()) throw std::runtime_error(in.held_out_dir.string() + ": no held-out prompts");
  report.prompts = static_cast<int>(prompts.size());
  const fs::path copy_dir = in.work_dir / "copy-synthesis", voice_dir = in.work_dir / "voice",
                 reference_dir = in.work_dir / "default-voice";
  fs::create_directories(copy_dir);
  fs::create_directories(voice_dir);
  // For an English voice, the bundled voice speaks the same prompts, so that the recogniser's
  // figure for the new voice has one beside it from the same run.
  report.words_judged = in.judge_words;
  std::optional<std::string> words_unmeasured;
  if (in.judge_words) {
    words_unmeasured = recogniser_missing();
    if (!words_unmeasured && !in.reference_voice)
      words_unmeasured = "the bundled voice `default` is not installed to compare with";
  }
  std::shared_ptr<const engine::Voice> reference;
  if (in.judge_words && !words_unmeasured) {
    reference = engine::Voice::load(*in.reference_voice);
    fs::create_directories(reference_dir);
  }
  const int rate = voice->sample_rate();
  const kernels::MelExtractor mel(voice->features());

  // Copy-synthesis (the vocoder's ceiling) and the voice speaking each prompt's text; the
  // voice's synthesis is timed on one thread per prompt for the real-time factor.
  std::vector<double> seconds(prompts.size()), synthesis(prompts.size()), spoken(prompts.size());
  parallel_for(prompts.size(), in.threads, [&](std::size_t i) {
    const train::CorpusEntry& p = prompts[i];
    const audio::Audio recording = audio::read_audio(p.path, rate);
    seconds[i] = static_cast<double>(recording.samples.size()) / rate;
    const kernels::Matrix frames = mel.compute(recording.samples.data(), recording.samples.size());
    const std::vector<float> copy = engine::vocode(voice->vocoder(), frames, {in.seed, 1.0f, 1});
    audio::write_audio(copy_dir / (p.id + ".wav"), copy.data(), copy.size(), rate);
    engine::SynthesisOptions options;
    options.seed = in.seed;
    options.threads = 1;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<float> said = engine::synthesize_all(voice, p.text, options);
    synthesis[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spoken[i] = static_cast<double>(said.size()) / rate;
    audio::write_audio(voice_dir / (p.id + ".wav"), said.data(), said.size(), rate);
    if (reference) {
      const std::vector<float> theirs = engine::synthesize_all(reference, p.text, options);
      audio::write_audio(reference_dir / (p.id + ".wav"), theirs.data(), theirs.size(),
                         reference->sample_rate());
    }
  });
  double total_synthesis = 0.0, total_spoken = 0.0;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    report.seconds += seconds[i];
    total_synthesis += synthesis[i];
    total_spoken += spoken[i];
  }
  report.real_time_factor = total_spoken > 0 ? total_synthesis / total_spoken : 0.0;
  note("synthesised " + std::to_string(prompts.size()) + " held-out prompts (" +
       fixed(report.seconds, 1) + " s recorded), real-time factor " +
       fixed(report.real_time_factor, 3) + " on one thread");

  train::AcousticScoreOptions score;
  score.model_dir = in.voice_dir / "acoustic";
  score.data_dir = in.held_out_dir;
  score.language = in.espeak_voice;
  score.loader_threads = in.threads;
  std::ostringstream score_log;
  report.mel_distance = train::score_acoustic_model(score, score_log).aligned_mel_l1;
  report.reference_mel_distance = in.reference_mel_distance;
  note("aligned log-mel distance to the recordings: " + fixed(report.mel_distance, 3));

  if (!praat_available()) {
    report.praat = "Praat is not installed (Debian package praat)";
  } else {
    std::vector<fs::path> files;
    for (const auto& p : prompts) {
      files.push_back(fs::absolute(p.path));
      files.push_back(fs::absolute(copy_dir / (p.id + ".wav")));
      files.push_back(fs::absolute(voice_dir / (p.id + ".wav")));
    }
    const auto measured = run_praat(files, in.work_dir / "praat");
    std::vector<PraatMeasure> recordings, copies, voices;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto found = measured.find(files[i]);
      if (found == measured.end()) continue;
      (i % 3 == 0 ? recordings : i % 3 == 1 ? copies : voices).push_back(found->second);
    }
    // Each spread within the range the recordings span, which leaves out the tracker's octave
    // errors on rough audio (pitch_range.h).
    const PitchRange range = speaker_pitch_range(voiced_frames(recordings));
    const PraatPool r = pool_measures(recordings, range), c = pool_measures(copies, range),
                    v = pool_measures(voices, range);
    if (range.bounded()) {
      report.f0_floor_hz = range.floor_hz;
      report.f0_ceiling_hz = range.ceiling_hz;
    }
    report.hnr_recordings = r.hnr_db;
    report.hnr_copy = c.hnr_db;
    report.hnr_voice = v.hnr_db;
    report.f0_sd_recordings = r.f0_sd_semitones;
    report.f0_sd_voice = v.f0_sd_semitones;
    report.praat = praat_version();
    report.praat_ran = true;
    note("Praat: HNR recordings " + fixed(r.hnr_db.value_or(0), 2) + " dB, copy-synthesis " +
         fixed(c.hnr_db.value_or(0), 2) + " dB, voice " + fixed(v.hnr_db.value_or(0), 2) +
         " dB; F0 spread recordings " + fixed(r.f0_sd_semitones.value_or(0), 2) + ", voice " +
         fixed(v.f0_sd_semitones.value_or(0), 2) + " semitones" +
         (range.bounded() ? " (within " + fixed(range.floor_hz, 0) + " to " +
                                fixed(range.ceiling_hz, 0) + " Hz)"
                          : std::string()));
  }
  if (in.judge_words) {
    if (words_unmeasured) {
      report.recogniser = *words_unmeasured;
    } else {
      judge_words(report, prompts, copy_dir, voice_dir, reference_dir, in, note);
    }
  }
  report.targets = judge(report);
  return report;
}

}  // namespace tts::creation
