#include "tts/kernels/parameter_set.h"

#include <algorithm>
#include <stdexcept>

namespace tts::kernels {

int ParameterSet::add(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("parameter " + name + ": empty shape");
  if (by_name_.count(name)) throw std::invalid_argument("parameter " + name + " added twice");
  Entry entry{name, rows, cols, values_.size()};
  values_.resize(values_.size() + entry.size(), 0.0f);
  entries_.push_back(entry);
  by_name_[name] = static_cast<int>(entries_.size() - 1);
  return static_cast<int>(entries_.size() - 1);
}

ParameterSet ParameterSet::zeros_like() const {
  ParameterSet copy = *this;
  copy.set_zero();
  return copy;
}

MatrixMap ParameterSet::matrix(int index) {
  const Entry& e = entries_.at(index);
  return MatrixMap(values_.data() + e.offset, e.rows, e.cols);
}

ConstMatrixMap ParameterSet::matrix(int index) const {
  const Entry& e = entries_.at(index);
  return ConstMatrixMap(values_.data() + e.offset, e.rows, e.cols);
}

Eigen::Map<Vector> ParameterSet::vector(int index) {
  const Entry& e = entries_.at(index);
  return Eigen::Map<Vector>(values_.data() + e.offset, e.rows * e.cols);
}

Eigen::Map<const Vector> ParameterSet::vector(int index) const {
  const Entry& e = entries_.at(index);
  return Eigen::Map<const Vector>(values_.data() + e.offset, e.rows * e.cols);
}

int ParameterSet::index_of(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) throw std::out_of_range("no parameter named \"" + name + "\"");
  return it->second;
}

void ParameterSet::set_zero() { std::fill(values_.begin(), values_.end(), 0.0f); }

void ParameterSet::fill_normal(int index, float stddev, std::mt19937_64& rng) {
  const Entry& e = entries_.at(index);
  std::normal_distribution<float> normal(0.0f, stddev);
  float* values = values_.data() + e.offset;
  for (std::size_t i = 0; i < e.size(); ++i) values[i] = normal(rng);
}

}  // namespace tts::kernels
