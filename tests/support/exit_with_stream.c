/* A program that starts a synthesis and returns from main with the stream running and never
 * freed, as a careless (or interrupted) caller of the C API does. Run by c_api_exit_test.
 *   exit_with_stream VOICE */
#include <stdio.h>
#include <tts/tts.h>

int main(int argc, char** argv) {
  tts_voice* voice;
  tts_stream* stream;
  if (argc != 2 || tts_voice_load(argv[1], NULL, &voice) != TTS_OK) {
    fprintf(stderr, "exit_with_stream: %s\n", tts_last_error());
    return 2;
  }
  if (tts_stream_create(voice, &stream) != TTS_OK ||
      tts_synthesize_start(stream,
                           "This long sentence keeps the frontend and the vocoder busy while the "
                           "program exits. And another one comes after it.",
                           NULL) != TTS_OK) {
    fprintf(stderr, "exit_with_stream: %s\n", tts_last_error());
    return 2;
  }
  return 0;
}
