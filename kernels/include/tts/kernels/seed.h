// Seeds derived from a run's or a request's seed: every place that needs a seed of its own for
// item k of something (a sentence, an alignment restart) derives it here, so that production code
// and the tests that reproduce it agree by construction.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tts::kernels {

// Output number `n` (counted from 1) of the SplitMix64 generator started at `state`: a well-mixed
// 64-bit value, unrelated for neighbouring states or numbers.
std::uint64_t splitmix64(std::uint64_t state, std::uint64_t n = 1);

// The sampler seed of sentence `index` (from 0) of a request whose seed is `seed`: each sentence
// draws its own random numbers, the same however the text is split into requests' sentences.
std::uint64_t sentence_seed(std::uint64_t seed, std::size_t index);

}  // namespace tts::kernels
