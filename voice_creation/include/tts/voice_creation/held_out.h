// The prompts kept out of a new voice's training to judge it: a seeded, deterministic choice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tts::creation {

struct HeldOutRule {
  double fraction = 0.05;      // of the recordings kept by intake
  int minimum = 20;            // at least this many, while training keeps
  double max_fraction = 0.25;  // at most this share of them
};

// The ids held out of `ids`: the same set for the same ids and seed whatever their order, in
// sorted order. Each id's place comes from a hash of the seed and the id alone (splitmix64 over
// its bytes), so a row added to the corpus leaves every other row where it was.
std::vector<std::string> choose_held_out(std::vector<std::string> ids, uint64_t seed,
                                         const HeldOutRule& rule = {});

}  // namespace tts::creation
