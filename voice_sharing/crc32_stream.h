// CRC-32 (IEEE 802.3, as zlib.crc32) computed over data arriving in pieces: the checksum voice.json
// and ttsvoice.json record, taken while a file is copied rather than in a second read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tts::sharing {

class Crc32Stream {
 public:
  void update(const void* data, std::size_t size);
  std::uint32_t value() const { return ~state_; }

 private:
  std::uint32_t state_ = 0xFFFFFFFFu;
};

}  // namespace tts::sharing
