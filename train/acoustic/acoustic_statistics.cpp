#include "tts/train/acoustic_statistics.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>

namespace tts::train {

namespace {

// Global mean and standard deviation of the training frames, for normalising the targets.
void measure_mel_statistics(const std::vector<AcousticUtterance>& utterances,
                            acoustic::AcousticConfig& config) {
  double sum = 0.0, sum2 = 0.0, count = 0.0;
  for (const auto& u : utterances) {
    sum += u.mel.cast<double>().sum();
    sum2 += u.mel.cast<double>().squaredNorm();
    count += static_cast<double>(u.mel.size());
  }
  const double mean = sum / count;
  config.mel_mean = static_cast<float>(mean);
  config.mel_std = static_cast<float>(std::sqrt(std::max(1e-6, sum2 / count - mean * mean)));
}

// The variance adaptor's corpus statistics: log F0 over the voiced frames, log energy over all.
void measure_variance_statistics(const std::vector<AcousticUtterance>& utterances,
                                 acoustic::AcousticConfig& config) {
  double pitch_sum = 0.0, pitch_sum2 = 0.0, voiced = 0.0;
  double energy_sum = 0.0, energy_sum2 = 0.0, frames = 0.0;
  for (const auto& u : utterances) {
    for (float f0 : u.f0_hz)
      if (f0 > 0.0f) {
        const double v = std::log(static_cast<double>(f0));
        pitch_sum += v, pitch_sum2 += v * v, voiced += 1.0;
      }
    energy_sum += u.log_energy.cast<double>().sum();
    energy_sum2 += u.log_energy.cast<double>().squaredNorm();
    frames += static_cast<double>(u.log_energy.size());
  }
  if (voiced < 1.0)
    throw std::runtime_error(
        "no voiced frame in the training corpus: the pitch tracker found no "
        "speech (is it silence or noise?)");
  const double pitch_mean = pitch_sum / voiced, energy_mean = energy_sum / frames;
  config.pitch_mean = static_cast<float>(pitch_mean);
  config.pitch_std =
      static_cast<float>(std::sqrt(std::max(1e-6, pitch_sum2 / voiced - pitch_mean * pitch_mean)));
  config.energy_mean = static_cast<float>(energy_mean);
  config.energy_std = static_cast<float>(
      std::sqrt(std::max(1e-6, energy_sum2 / frames - energy_mean * energy_mean)));
}

}  // namespace

// The statistics the targets are normalised with: measured on the training frames, or, for a run
// that trains only some layers (`kept`, the starting model's config), the starting model's. Its
// frozen layers were fitted to those (the decoder's output to its mel statistics, the pitch
// predictor to its log F0 ones), and a corpus made to teach the trained layers something new
// (pitch-shifted copies of the recordings, scripts/build-pitch-shifted-corpus) has statistics of
// its own. A variance adaptor that the starting model lacks is new: its statistics are measured.
void set_corpus_statistics(const std::vector<AcousticUtterance>& training,
                           const acoustic::AcousticConfig* kept, acoustic::AcousticConfig& config,
                           std::ostream& log) {
  if (kept) {
    config.mel_mean = kept->mel_mean;
    config.mel_std = kept->mel_std;
    log << "corpus statistics: the starting model's (--train-layers trains only some layers)\n";
  } else {
    measure_mel_statistics(training, config);
  }
  if (!config.pitch_energy) return;
  if (kept && kept->pitch_energy) {
    config.pitch_mean = kept->pitch_mean;
    config.pitch_std = kept->pitch_std;
    config.energy_mean = kept->energy_mean;
    config.energy_std = kept->energy_std;
  } else {
    measure_variance_statistics(training, config);
  }
}

}  // namespace tts::train
