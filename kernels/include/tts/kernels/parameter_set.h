// Named model parameters in one flat float buffer: the optimiser, gradient clipping and weight
// averaging work on the whole buffer at once, and checkpoints walk the names.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

class ParameterSet {
 public:
  struct Entry {
    std::string name;
    Eigen::Index rows = 0, cols = 0;  // a vector is rows × 1
    std::size_t offset = 0;           // in floats from the start of the buffer
    std::size_t size() const { return static_cast<std::size_t>(rows * cols); }
  };

  // Appends a zero-initialised rows × cols tensor; returns its index. Invalidates earlier maps.
  int add(const std::string& name, Eigen::Index rows, Eigen::Index cols = 1);

  // A copy of the layout with every value zero (for gradients and optimiser moments).
  ParameterSet zeros_like() const;

  MatrixMap matrix(int index);
  ConstMatrixMap matrix(int index) const;
  Eigen::Map<Vector> vector(int index);
  Eigen::Map<const Vector> vector(int index) const;

  // Index of `name`; throws std::out_of_range naming it when absent.
  int index_of(const std::string& name) const;
  const std::vector<Entry>& entries() const { return entries_; }

  float* data() { return values_.data(); }
  const float* data() const { return values_.data(); }
  std::size_t size() const { return values_.size(); }
  void set_zero();
  // Tensor `index` drawn from Normal(0, stddev²), in storage order (column by column): the
  // models' initialisation, the same weights for the same generator state.
  void fill_normal(int index, float stddev, std::mt19937_64& rng);

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<float> values_;
};

}  // namespace tts::kernels
