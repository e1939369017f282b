#pragma once
// The verdict a `gpuvet kb` answer opens with: what its rows mean for the user, as catalog
// messages (report::VerdictLine), built from the same rows --sources shows.
#include <string>

#include "core/result.hpp"
#include "frameworks/framework.hpp"
#include "kb/kb.hpp"
#include "report/render_kb.hpp"

namespace gpuvet::cli {

// kb gpu: identity, CUDA toolkits, driver branch, each framework's builds.
Result<bool> add_gpu_verdict(const kb::Kb& kb, report::KbAnswer& answer);
// kb cuda / kb cudnn: releases, drivers, targets, library names (from answer.sections).
void add_cuda_verdict(report::KbAnswer& answer);
void add_cudnn_verdict(report::KbAnswer& answer);
// kb framework: the builds of the release asked for, or a summary and the newest release's.
Result<bool> add_framework_verdict(const kb::Kb& kb, const frameworks::Spec& spec,
                                   report::KbAnswer& answer);

}  // namespace gpuvet::cli
