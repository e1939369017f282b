#pragma once
// Where the Python environments of a machine are: the interpreters on PATH, the activated
// environment, and the places every environment manager keeps its environments (docs/python.md).
#include <optional>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "system/system.hpp"

namespace gpuvet::probes {

struct EnvironmentCandidate {
  std::string prefix;    // normalised; may not exist, may not be a Python environment
  std::string kind;      // the kind when the prefix itself does not say (conda-meta, pyvenv.cfg)
  std::string found_by;  // the location row: "$VIRTUAL_ENV", "~/.conda/envs", "PATH" ...
};

struct EnvironmentSearch {
  std::vector<EnvironmentCandidate> candidates;  // in priority order; the same prefix may recur
  std::optional<std::string> active_key;         // environment_key of what `python` runs, if known
};

// Reads only what the System answers: Facts give the OS family and the PATH (probe_env).
EnvironmentSearch find_python_environments(const sys::System& system, const Facts& facts);

// How prefixes are compared: the real path, case-folded on Windows.
std::string environment_key(const sys::System& system, const std::string& path, bool windows);

// Inside a pyenv root's versions/ ($PYENV_ROOT or ~/.pyenv).
bool under_pyenv_root(const sys::System& system, const Facts& facts, const std::string& prefix);

}  // namespace gpuvet::probes
