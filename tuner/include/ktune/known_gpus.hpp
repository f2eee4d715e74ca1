#pragma once
// Well-known NVIDIA data-centre and workstation GPUs: compute capability and SM count by
// model name, from NVIDIA's public specifications. Results measured elsewhere often name
// the GPU and nothing else; without its compute capability no GPU could choose their
// table, so an import that knows only the name takes the rest from here.
#include <optional>
#include <span>
#include <string>

namespace ktune {

struct KnownGpu {
  const char* words;  // "H100 PCIe": whole words of the GPU's name, in this order
  int cc_major, cc_minor;
  int sm_count;  // the model's, as sold; 0 for a MIG instance (a slice of them)
};

// The entry whose words the GPU's name contains (case ignored; words end at anything but a
// letter or digit), the one with the most words when several do: "NVIDIA H100 PCIe" is
// "H100 PCIe", not "H100"; "NVIDIA A100-SXM4-80GB" is "A100"; "NVIDIA A10G" is none.
// A MIG instance ("... MIG 1g.10gb") keeps the compute capability, not the SM count.
std::optional<KnownGpu> find_known_gpu(const std::string& gpu_name);

// The whole table, in the order of its generations.
std::span<const KnownGpu> known_gpus();

}  // namespace ktune
