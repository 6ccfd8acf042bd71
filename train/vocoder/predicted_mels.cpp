#include "tts/train/predicted_mels.h"

#include <ostream>
#include <stdexcept>

#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/kernels/npy.h"
#include "tts/train/acoustic_corpus.h"

namespace fs = std::filesystem;

namespace tts::train {

int write_aligned_mels(const AlignedMelOptions& o, std::ostream& log) {
  const acoustic::AcousticModelFiles model = acoustic::load_acoustic_files(o.model_dir);
  const acoustic::AcousticConfig& config = model.weights->config();
  RecordingsToAlign recordings =
      load_recordings_to_align(model, o.data_dir, o.language, o.loader_threads, log);
  const std::vector<AcousticUtterance>& all = recordings.utterances;
  const acoustic::AcousticLossSettings& settings = recordings.settings;
  acoustic::AcousticPass pass(*model.weights, settings);

  fs::create_directories(o.out_dir);
  for (std::size_t i = 0; i < all.size(); ++i) {
    pass.forward(pack_utterances(all, i, 1));  // durations by alignment search
    const kernels::Matrix mel =
        (pass.predicted_mel().array() * config.mel_std + config.mel_mean).matrix();
    // Column-major n_mels × frames is exactly C-order (frames, n_mels), the layout of `tts mel`.
    kernels::write_npy(
        o.out_dir / (all[i].id + ".npy"), mel.data(),
        {static_cast<std::size_t>(mel.cols()), static_cast<std::size_t>(mel.rows())});
  }
  return static_cast<int>(all.size());
}

int attach_predicted_mels(std::vector<AudioUtterance>& utterances, const fs::path& dir,
                          std::vector<std::string>& warnings) {
  if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + ": not a folder");
  int attached = 0;
  std::vector<std::string> missing;
  for (AudioUtterance& u : utterances) {
    const fs::path file = dir / (u.id + ".npy");
    if (!fs::exists(file)) {
      missing.push_back(u.id);
      continue;
    }
    const kernels::NpyArray a = kernels::read_npy(file);
    const auto frames = static_cast<std::size_t>(u.mel.cols());
    const auto mels = static_cast<std::size_t>(u.mel.rows());
    if (a.shape.size() != 2 || a.shape[0] != frames || a.shape[1] != mels) {
      std::string shape;
      for (std::size_t d : a.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      throw std::runtime_error(file.string() + ": shape (" + shape + ") is not the recording's (" +
                               std::to_string(frames) + ", " + std::to_string(mels) +
                               "); were these frames made from this corpus and features?");
    }
    // C-order (frames, n_mels) is column-major n_mels × frames.
    u.predicted_mel = Eigen::Map<const kernels::Matrix>(a.data.data(), u.mel.rows(), u.mel.cols());
    ++attached;
  }
  if (!missing.empty()) {
    std::string named;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) named += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) named += ", …";
    warnings.push_back(dir.string() + ": no predicted frames for " +
                       std::to_string(missing.size()) + " recording(s) (" + named +
                       "); they train on their own frames only");
  }
  return attached;
}

}  // namespace tts::train
