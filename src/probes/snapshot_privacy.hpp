#pragma once
// What a snapshot keeps of what the probes read. Structural first: of each file kind a probe
// parses (.condarc, conda-meta records, core metadata, pyvenv.cfg) and of the Windows Environment
// keys, only the fields the probes use; then the environment allow-list (redact::environment);
// then the pattern net (redact::scrub_text) over every string, keys included. docs/privacy.md.
#include <string>
#include <vector>

#include "system/redact.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::probes {

struct PrivacyOptions {
  // --redact-user: these users' names and homes are replaced in the whole snapshot.
  std::vector<redact::Identity> users;
};

sys::Snapshot private_snapshot(const sys::Snapshot& recorded, const PrivacyOptions& options = {});

// The structural part alone, for one file: what remains of `text` read from `path`, or the text
// unchanged when gpuvet parses nothing of it. `condarc` and `slurm_conf` are the recorded
// $CONDARC and $SLURM_CONF, if any.
std::string keep_what_probes_read(const std::string& path, const std::string& text,
                                  const std::string& condarc = "",
                                  const std::string& slurm_conf = "");

}  // namespace gpuvet::probes
