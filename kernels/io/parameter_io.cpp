#include "tts/kernels/parameter_io.h"

#include <vector>

namespace tts::kernels {

namespace {
std::vector<int64_t> file_shape(const ParameterSet::Entry& e) {
  if (e.cols == 1) return {static_cast<int64_t>(e.rows)};
  return {static_cast<int64_t>(e.rows), static_cast<int64_t>(e.cols)};
}
}  // namespace

void add_parameters(SafetensorsWriter& writer, const ParameterSet& parameters,
                    const std::string& prefix) {
  for (std::size_t i = 0; i < parameters.entries().size(); ++i) {
    const auto& e = parameters.entries()[i];
    // Column-major in memory; the transpose's column-major bytes are the row-major bytes.
    const Matrix row_major = parameters.matrix(static_cast<int>(i)).transpose();
    writer.add_f32(prefix + e.name, file_shape(e), row_major.data());
  }
}

void read_parameters(const SafetensorsFile& file, ParameterSet& parameters,
                     const std::string& prefix) {
  for (std::size_t i = 0; i < parameters.entries().size(); ++i) {
    const auto& e = parameters.entries()[i];
    const std::vector<float> values = file.f32(prefix + e.name, file_shape(e));
    parameters.matrix(static_cast<int>(i)) =
        ConstMatrixMap(values.data(), e.cols, e.rows).transpose();
  }
}

}  // namespace tts::kernels
