#include "tts/train/acoustic_score.h"

#include <cmath>
#include <ostream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/train/acoustic_corpus.h"

namespace tts::train {

namespace {

// The requested recordings in the order asked, or all of them; throws naming every id missing.
std::vector<AcousticUtterance> select(std::vector<AcousticUtterance> all,
                                      const std::vector<std::string>& ids,
                                      const std::filesystem::path& data_dir) {
  if (ids.empty()) return all;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < all.size(); ++i) index.emplace(all[i].id, i);
  std::vector<AcousticUtterance> chosen;
  std::string missing;
  for (const auto& id : ids) {
    const auto at = index.find(id);
    if (at == index.end())
      missing += (missing.empty() ? "" : ", ") + id;
    else
      chosen.push_back(all[at->second]);
  }
  if (!missing.empty())
    throw std::invalid_argument(data_dir.string() + ": no usable recording with id " + missing +
                                " (see the warnings above for rows that were skipped)");
  return chosen;
}

}  // namespace

AcousticScore score_acoustic_model(const AcousticScoreOptions& o, std::ostream& log) {
  const acoustic::AcousticModelFiles model = acoustic::load_acoustic_files(o.model_dir);
  const acoustic::AcousticConfig& config = model.weights->config();
  // Channel weights over the whole corpus, so that a recording scores the same whichever others
  // are scored with it.
  RecordingsToAlign recordings =
      load_recordings_to_align(model, o.data_dir, o.language, o.loader_threads, log);
  const acoustic::AcousticLossSettings& settings = recordings.settings;
  std::unordered_set<std::string> validation;
  for (std::size_t i = recordings.validation_begin; i < recordings.utterances.size(); ++i)
    validation.insert(recordings.utterances[i].id);
  const std::vector<AcousticUtterance> scored =
      select(std::move(recordings.utterances), o.ids, o.data_dir);
  acoustic::AcousticPass pass(*model.weights, settings);

  AcousticScore score;
  double mel_error = 0.0, duration_error = 0.0;
  int64_t sounding = 0;
  std::vector<int> synthesized;
  kernels::Matrix synthesized_mel;
  for (std::size_t i = 0; i < scored.size(); ++i) {
    const AcousticUtterance& u = scored[i];
    // Durations by alignment search.
    const acoustic::AcousticLosses losses = pass.forward(pack_utterances(scored, i, 1));
    const kernels::Matrix predicted =
        (pass.predicted_mel().array() * config.mel_std + config.mel_mean).matrix();
    const double utterance_error = static_cast<double>((predicted - u.mel).cwiseAbs().sum());
    mel_error += utterance_error;
    const auto frames = static_cast<double>(u.mel.cols());
    score.per_utterance.push_back({u.id, static_cast<int>(u.mel.cols()),
                                   frames > 0 ? utterance_error / (frames * config.n_mels) : 0.0,
                                   losses.prior, validation.count(u.id) > 0});
    const kernels::Matrix log_durations = pass.log_durations();
    for (std::size_t k = 0; k < u.ids.size(); ++k) {
      if (model.symbols->timings().at(static_cast<std::size_t>(u.ids[k])) !=
          frontend::SymbolTiming::kSounds)
        continue;
      const double predicted_log = log_durations(0, static_cast<Eigen::Index>(k));
      duration_error += std::abs(predicted_log - std::log1p(pass.durations()[k]));
      ++sounding;
    }
    pass.synthesize(u.ids, 1.0f, synthesized, synthesized_mel);
    score.synthesized_frames += synthesized_mel.cols();
    score.frames += u.mel.cols();
  }
  score.utterances = static_cast<int>(scored.size());
  if (score.frames > 0)
    score.aligned_mel_l1 = mel_error / static_cast<double>(score.frames * config.n_mels);
  if (sounding > 0) score.log_duration_l1 = duration_error / static_cast<double>(sounding);
  return score;
}

}  // namespace tts::train
