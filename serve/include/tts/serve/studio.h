// The studio of `tts serve --studio DIR`: a person records the prompts in the page, the server
// checks each take and stores it in DIR/NAME in the LJSpeech layout `tts voices create` reads
// (metadata.csv `id|text`, wavs/ID.wav), then runs `tts voices create` on them as a child process
// (studio_job.h) and serves the voice it makes. Its routes (studio_routes.cpp) are under
// /v1/studio; docs/serve.md lists them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace tts::serve {

class SpeechService;
class StudioJob;

struct StudioOptions {
  std::filesystem::path dir;  // empty: no studio
  std::filesystem::path
      prompts;                // LANG.txt files, one sentence a line (default: studio_prompts_dir)
  std::filesystem::path tts;  // the `tts` executable the job runs (`tts serve`'s own)
  double max_clip_seconds = 20.0;
  double min_clip_seconds = 0.5;
  int max_clips = 2000;                       // per voice
  std::uint64_t max_disk_bytes = 4ull << 30;  // everything under dir
  std::uint64_t min_free_bytes = 2ull << 30;  // free on dir's disk to start a job
  double wanted_minutes = 20.0;               // what the page asks for (5 at the least)
  double least_minutes = 5.0;                 // voices create's --min-minutes
  std::vector<std::string> create_args;       // more arguments for `tts voices create`
  // The largest take a request may carry: max_clip_seconds of 16-bit mono at 48 kHz and a header.
  std::size_t max_take_bytes() const;
};

// A refusal: the HTTP status and the message the page shows.
struct StudioError : std::runtime_error {
  StudioError(int status, const std::string& message)
      : std::runtime_error(message), status(status) {}
  int status;
};

class Studio {
 public:
  // Creates `options.dir` when absent and serves the voices earlier jobs made there. Throws
  // std::runtime_error when dir cannot be made or the prompts are not found.
  Studio(StudioOptions options, SpeechService& service);
  ~Studio();  // cancels a running job and waits for it
  Studio(const Studio&) = delete;
  Studio& operator=(const Studio&) = delete;

  // GET /v1/studio: the languages with prompts, the voices being recorded, the limits, the job.
  nlohmann::json overview() const;
  // GET /v1/studio/voices/NAME?lang=: where its recording stands and the prompt to record next.
  nlohmann::json session(const std::string& name, const std::string& language) const;
  // POST /v1/studio/voices/NAME/takes?lang=&prompt=N, the body a WAV file: checks and stores it.
  nlohmann::json add_take(const std::string& name, const std::string& language, int prompt,
                          const std::string& wav);
  // POST /v1/studio/voices/NAME/skip?lang=&prompt=N.
  nlohmann::json skip(const std::string& name, const std::string& language, int prompt);
  // POST /v1/studio/voices/NAME/create: starts the voice job (409 while one runs).
  nlohmann::json create(const std::string& name);
  // GET /v1/studio/job and POST /v1/studio/job/cancel.
  nlohmann::json job() const;
  nlohmann::json cancel();

  const StudioOptions& options() const { return options_; }

 private:
  std::filesystem::path voice_dir(const std::string& name) const;  // checks the name
  std::filesystem::path made_dir() const { return options_.dir / ".voices"; }
  const std::vector<std::string>& prompts(const std::string& language) const;
  std::uint64_t disk_use() const;
  void serve_made_voice(const std::filesystem::path& folder, const std::string& name);

  StudioOptions options_;
  SpeechService& service_;
  std::vector<std::pair<std::string, std::vector<std::string>>> prompts_;  // language, sentences
  mutable std::mutex mutex_;                                               // the recordings on disk
  std::unique_ptr<StudioJob> job_;
};

// The folder of prompt files a studio reads without --studio-prompts: prompts/ of the installed
// share folder (<prefix>/share/tts/prompts), or voice_creation/prompts of the source tree when run
// from the build tree.
std::filesystem::path studio_prompts_dir();

// Whether `name` is a voice name the studio accepts: 1–64 of A–Z a–z 0–9 - _, not starting with -.
bool studio_name_ok(const std::string& name);

}  // namespace tts::serve
