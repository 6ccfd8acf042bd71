#include "tts/voice_creation/held_out.h"

#include <algorithm>
#include <cmath>

#include "tts/kernels/seed.h"

namespace tts::creation {

namespace {

uint64_t id_hash(uint64_t seed, const std::string& id) {
  uint64_t h = kernels::splitmix64(seed ^ 0x5eedull);
  for (unsigned char c : id) h = kernels::splitmix64(h ^ c);
  return h;
}

}  // namespace

std::vector<std::string> choose_held_out(std::vector<std::string> ids, uint64_t seed,
                                         const HeldOutRule& rule) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const auto n = static_cast<double>(ids.size());
  const auto wanted = static_cast<std::size_t>(
      std::min(std::max(std::lround(rule.fraction * n), static_cast<long>(rule.minimum)),
               static_cast<long>(std::floor(rule.max_fraction * n))));
  std::vector<std::pair<uint64_t, std::string>> ranked;
  ranked.reserve(ids.size());
  for (const std::string& id : ids) ranked.emplace_back(id_hash(seed, id), id);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> chosen;
  for (std::size_t i = 0; i < wanted && i < ranked.size(); ++i) chosen.push_back(ranked[i].second);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace tts::creation
