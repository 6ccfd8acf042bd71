#include "tts/kernels/losses.h"

#include <stdexcept>
#include <string>

namespace tts::kernels {

namespace {
void check(ConstMatrixRef prediction, ConstMatrixRef target, MatrixRef d_prediction,
           const char* name) {
  if (prediction.rows() != target.rows() || prediction.cols() != target.cols() ||
      d_prediction.rows() != prediction.rows() || d_prediction.cols() != prediction.cols())
    throw std::invalid_argument(std::string(name) + ": shapes do not agree");
  if (prediction.size() == 0) throw std::invalid_argument(std::string(name) + ": no elements");
}
}  // namespace

double mse_loss(ConstMatrixRef prediction, ConstMatrixRef target, MatrixRef d_prediction,
                float scale) {
  check(prediction, target, d_prediction, "mse_loss");
  const double n = static_cast<double>(prediction.size());
  d_prediction = prediction - target;
  const double loss = static_cast<double>(d_prediction.cast<double>().squaredNorm()) / n;
  d_prediction *= static_cast<float>(2.0 * scale / n);
  return loss;
}

double l1_loss(ConstMatrixRef prediction, ConstMatrixRef target, MatrixRef d_prediction,
               float scale) {
  check(prediction, target, d_prediction, "l1_loss");
  const double n = static_cast<double>(prediction.size());
  d_prediction = prediction - target;
  const double loss = d_prediction.cast<double>().cwiseAbs().sum() / n;
  d_prediction = d_prediction.array().sign() * static_cast<float>(scale / n);
  return loss;
}

}  // namespace tts::kernels
