#pragma once
// What a user pastes to name a GPU, read into something the GPU tables can be searched by:
// a PCI device id (from "10de:2504", "0x2504", "PCI\VEN_10DE&DEV_2504&…", lspci -nn), a chip
// (lspci's "GA106"), and a name key that ignores what does not tell GPUs apart (case, the
// NVIDIA/GeForce/Tesla/Quadro brands, "(TM)", separators, memory sizes).
#include <optional>
#include <string>
#include <string_view>

namespace gpuvet::kb {

struct GpuQuery {
  std::optional<std::string> device_id;  // four lower-case hex digits
  std::string chip;                      // "GA106", from an lspci line
  std::string name;                      // the product name part of the text
  bool truncated = false;                // cut by nvidia-smi's column ("NVIDIA A100-SXM...")
  // The capability the line itself states, as the device reported it to the tool that printed
  // it: "compute capability 8.6", "major: 5 minor: 2", "CUDA capability sm_120".
  std::optional<std::string> stated_cc;
};

GpuQuery parse_gpu_query(std::string_view text);

// "NVIDIA GeForce RTX 3060 Ti" -> "rtx 3060 ti": lower case, brands, "(TM)", punctuation and
// memory sizes dropped; "1650Ti" and "4090D" are split into their words.
std::string gpu_key(std::string_view name);
// The key without the words that name a board of the GPU rather than another GPU: form factor
// (SXM4, PCIe, NVL, HBM3), "Laptop GPU", "with Max-Q Design", "Lite Hash Rate".
std::string gpu_board_key(std::string_view name);

}  // namespace gpuvet::kb
