#include "tts/train/acoustic_corpus.h"

#include <ostream>
#include <random>
#include <stdexcept>

#include "tts/acoustic/model_files.h"
#include "tts/acoustic/variance_adaptor.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/train/audio_corpus.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

void append(acoustic::AcousticBatch& batch, const AcousticUtterance& u) {
  batch.ids.insert(batch.ids.end(), u.ids.begin(), u.ids.end());
  batch.token_lengths.push_back(static_cast<int>(u.ids.size()));
  batch.frame_lengths.push_back(static_cast<int>(u.mel.cols()));
  batch.speakers.push_back(u.speaker);
}

acoustic::AcousticBatch pack(const std::vector<const AcousticUtterance*>& chosen) {
  acoustic::AcousticBatch batch;
  Eigen::Index frames = 0;
  for (const AcousticUtterance* u : chosen) {
    // The contours are frame-aligned with the mels (load_acoustic_corpus computes all three);
    // anything else would be copied out of bounds below.
    if (u->log_f0.cols() != u->mel.cols() || u->log_energy.cols() != u->mel.cols())
      throw std::invalid_argument("acoustic batch: utterance " + u->id + " has " +
                                  std::to_string(u->mel.cols()) + " mel frames but " +
                                  std::to_string(u->log_f0.cols()) + " pitch and " +
                                  std::to_string(u->log_energy.cols()) + " energy frames");
    append(batch, *u);
    frames += u->mel.cols();
  }
  if (chosen.empty()) return batch;
  batch.mel.resize(chosen.front()->mel.rows(), frames);
  batch.log_f0.resize(1, frames);
  batch.log_energy.resize(1, frames);
  Eigen::Index at = 0;
  for (const AcousticUtterance* u : chosen) {
    batch.mel.middleCols(at, u->mel.cols()) = u->mel;
    batch.log_f0.middleCols(at, u->mel.cols()) = u->log_f0;
    batch.log_energy.middleCols(at, u->mel.cols()) = u->log_energy;
    at += u->mel.cols();
  }
  return batch;
}

}  // namespace

AcousticCorpus load_acoustic_corpus(const fs::path& dir, const kernels::MelConfig& features,
                                    const std::string& language, int threads) {
  AudioCorpusOptions options;
  options.features = features;
  options.threads = threads;
  options.pitch_energy = true;
  AudioCorpus audio = load_audio_corpus(dir, options);
  const frontend::TextPipeline pipeline(language);
  AcousticCorpus corpus;
  corpus.warnings = std::move(audio.warnings);
  corpus.skipped = std::move(audio.skipped);
  auto convert = [&](std::vector<AudioUtterance>& from, std::vector<AcousticUtterance>& to) {
    for (AudioUtterance& u : from) {
      auto skip = [&](const std::string& reason, const std::string& what) {
        corpus.warnings.push_back(u.path.string() + ": skipped: " + what);
        ++corpus.skipped[reason];
      };
      if (u.text.empty()) {
        skip("without a transcript", "no transcript (an acoustic model needs metadata.csv)");
        continue;
      }
      AcousticUtterance a;
      try {
        std::vector<int> ids = pipeline.process_sentence(u.text).ids;
        a.ids.assign(ids.begin(), ids.end());
      } catch (const std::exception& e) {
        skip("not phonemised", std::string("transcript does not phonemise: ") + e.what());
        continue;
      }
      if (static_cast<Eigen::Index>(a.ids.size()) > u.mel.cols()) {
        skip("with fewer frames than phonemes", std::to_string(a.ids.size()) +
                                                    " phoneme ids but only " +
                                                    std::to_string(u.mel.cols()) + " frames");
        continue;
      }
      a.id = std::move(u.id);
      a.text = std::move(u.text);
      a.mel = std::move(u.mel);
      a.log_f0 = acoustic::continuous_log_f0(u.f0_hz);
      a.log_energy = u.log_energy.transpose();
      a.f0_hz = std::move(u.f0_hz);
      to.push_back(std::move(a));
    }
  };
  convert(audio.training, corpus.training);
  convert(audio.validation, corpus.validation);
  if (corpus.training.empty())
    throw std::runtime_error(dir.string() + ": no usable recordings with transcripts: " +
                             describe_skipped(corpus.skipped, corpus.warnings));
  return corpus;
}

acoustic::AcousticBatch make_speaker_balanced_batch(
    const std::vector<AcousticUtterance>& utterances, int speakers, int count, uint64_t seed,
    int64_t index) {
  return make_speaker_balanced_batch_slice(utterances, speakers, count, seed, index, 0, count);
}

acoustic::AcousticBatch make_speaker_balanced_batch_slice(
    const std::vector<AcousticUtterance>& utterances, int speakers, int count, uint64_t seed,
    int64_t index, int first, int slice) {
  if (speakers < 1 || count < 1)
    throw std::invalid_argument("make_speaker_balanced_batch: nothing to draw");
  if (first < 0 || slice < 1 || first + slice > count)
    throw std::invalid_argument("make_speaker_balanced_batch: utterances " + std::to_string(first) +
                                ".." + std::to_string(first + slice - 1) +
                                " are not in a batch of " + std::to_string(count));
  std::vector<std::vector<const AcousticUtterance*>> by_speaker(static_cast<std::size_t>(speakers));
  for (const AcousticUtterance& u : utterances) {
    if (u.speaker < 0 || u.speaker >= speakers)
      throw std::invalid_argument("make_speaker_balanced_batch: " + u.id + " has speaker " +
                                  std::to_string(u.speaker) + " of " + std::to_string(speakers));
    by_speaker[static_cast<std::size_t>(u.speaker)].push_back(&u);
  }
  for (int s = 0; s < speakers; ++s)
    if (by_speaker[static_cast<std::size_t>(s)].empty())
      throw std::invalid_argument("make_speaker_balanced_batch: speaker " + std::to_string(s) +
                                  " has no utterance");
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0xac0u};
  std::mt19937_64 rng(seq);
  std::vector<const AcousticUtterance*> chosen;
  for (int i = 0; i < first + slice; ++i) {
    const auto& pool = by_speaker[static_cast<std::size_t>(i % speakers)];
    const AcousticUtterance* u = pool[static_cast<std::size_t>(rng() % pool.size())];
    if (i >= first) chosen.push_back(u);  // the draws before the slice are made all the same
  }
  return pack(chosen);
}

acoustic::AcousticBatch pack_utterances(const std::vector<AcousticUtterance>& utterances,
                                        std::size_t first, std::size_t count) {
  std::vector<const AcousticUtterance*> chosen;
  for (std::size_t i = first; i < utterances.size() && i < first + count; ++i)
    chosen.push_back(&utterances[i]);
  return pack(chosen);
}

kernels::Vector alignment_channel_weights(const std::vector<AcousticUtterance>& utterances,
                                          const acoustic::AcousticConfig& config) {
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(config.n_mels), sum2 = sum;
  double count = 0.0;
  for (const auto& u : utterances) {
    const Eigen::MatrixXd x =
        ((u.mel.array() - config.mel_mean) / config.mel_std).matrix().cast<double>();
    sum += x.rowwise().sum();
    sum2 += x.array().square().matrix().rowwise().sum();
    count += static_cast<double>(x.cols());
  }
  const Eigen::ArrayXd mean = sum.array() / count;
  const Eigen::ArrayXd variance = (sum2.array() / count - mean.square()).max(1e-4);
  return variance.rsqrt().cast<float>().matrix();
}

RecordingsToAlign load_recordings_to_align(const acoustic::AcousticModelFiles& model,
                                           const std::filesystem::path& dir,
                                           const std::string& language, int threads,
                                           std::ostream& log) {
  AcousticCorpus corpus = load_acoustic_corpus(dir, model.features, language, threads);
  for (const auto& w : corpus.warnings) log << "warning: " << w << "\n";
  RecordingsToAlign r;
  r.utterances = std::move(corpus.training);
  r.validation_begin = r.utterances.size();
  for (auto& u : corpus.validation) r.utterances.push_back(std::move(u));
  r.settings.symbol_timings = model.symbols->timings();  // stress and length marks take no frames
  r.settings.alignment_channel_weights =
      alignment_channel_weights(r.utterances, model.weights->config());
  return r;
}

}  // namespace tts::train
