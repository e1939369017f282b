#pragma once
// What users see of a knowledge-base row's provenance. The `source` (and `notes`) cells keep,
// for maintainers, where a fact was read: notes outside the repository (shared/reference/…,
// shared/design/…), the repository's tests (tests/…) and commits by their full hash. Users
// get the public part only: every table is read through public_text() once, when it is parsed
// (kb.cpp), so no renderer can print the rest.
#include <string>
#include <string_view>

namespace gpuvet::kb {

// The public part of a source or a note:
// - items (separated by ';', also inside parentheses) that cite a repository-internal document
//   are left out: "https://x/y; shared/reference/a.md §2" -> "https://x/y", and a trailing
//   "via shared/reference/a.md §9" goes;
// - a GitHub file or commit cited by its hash becomes a GitHub URL, with the hash shortened to
//   12 digits (GitHub resolves it): "tensorflow/tensorflow .bazelrc@<40 hex>" ->
//   "https://github.com/tensorflow/tensorflow/blob/<12 hex>/.bazelrc", "jax-ml/jax@<40 hex>" ->
//   "https://github.com/jax-ml/jax/tree/<12 hex>", "tensorflow/docs commit <40 hex>" ->
//   "https://github.com/tensorflow/docs/commit/<12 hex>"; any other 40-digit hash is shortened.
// Empty when nothing public is left.
std::string public_text(std::string_view text);

// Whether a text cites something users cannot open: shared/…, reference/…, tests/… (at the start
// of a word: a URL's /reference/ is public) or a full 40-digit commit hash.
bool cites_internal(std::string_view text);

}  // namespace gpuvet::kb
