// The matrix types every kernel speaks. Activations are column-major with one column per time step
// (channels × time), so a time step is contiguous and a GEMM over time is one call.
#pragma once

#include <Eigen/Core>

namespace tts::kernels {

using Matrix = Eigen::MatrixXf;
using Vector = Eigen::VectorXf;
using MatrixMap = Eigen::Map<Eigen::MatrixXf>;
using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXf>;
using MatrixRef = Eigen::Ref<Eigen::MatrixXf>;
using ConstMatrixRef = Eigen::Ref<const Eigen::MatrixXf>;
using VectorRef = Eigen::Ref<Eigen::VectorXf>;
using ConstVectorRef = Eigen::Ref<const Eigen::VectorXf>;

}  // namespace tts::kernels
