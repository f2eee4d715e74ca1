// The generic harness of ktune-t1-tuner: ktune_harness() made from a T1 spec, so that a
// Kernel Tuner-style kernel tunes with no C++ to write. `ktune tune --t1` names the run
// file (KTUNE_T1_RUN): the spec, the manifest, the tolerance. For one key (a problem size)
// it makes the spec's Arguments (Vector: a device array with its Size and fill; Scalar:
// its FillValue by value; MemType Constant: also copied to the __constant__ variable of
// that name), computes block and grid as Kernel Tuner does (T1Geometry), and takes as the
// expected outputs what the reference config's cubin writes on this GPU: the Default's
// values (`ktune tune --t1` says which), or the first valid config when those do not run.
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <iterator>
#include <memory>

#include <nlohmann/json.hpp>

#include "ktune/driver.hpp"
#include "ktune/harness.hpp"
#include "ktune/launch_config.hpp"
#include "ktune/manifest.hpp"
#include "ktune/t1_kernel.hpp"
#include "ktune/t1_plan.hpp"
#include "ktune/t1_spec.hpp"

namespace {

using namespace ktune;

// What every key shares, read once per worker process.
struct Reference {
  std::vector<int64_t> values;
  std::string cubin, log;
};

struct T1Setup {
  T1Run run;
  SpaceSpec space;
  T1Kernel kernel;
  std::vector<std::string> names;     // the manifest's parameters, in its order
  Reference reference;                // the Default's values (or the first valid config)
  std::optional<Reference> fallback;  // the first valid config other than the reference
  std::string entry;
};

// Set once the reference failed to run: every later key takes the fallback at once.
bool reference_failed = false;

const T1Setup& setup() {
  static const T1Setup s = [] {
    const char* path = std::getenv(kT1RunVariable);
    if (!path || !*path)
      throw Error(std::string(kT1RunVariable) +
                  " is not set: ktune-t1-tuner is run by `ktune tune --t1`, which sets it");
    T1Setup s;
    s.run = T1Run::from_json(read_json_file(path), path);
    const nlohmann::json doc = read_json_file(s.run.spec);
    s.space = read_t1_spec(doc, s.run.spec);
    s.kernel = read_t1_kernel(doc, s.run.spec);
    const Manifest m = Manifest::from_json(read_json_file(s.run.manifest), s.run.manifest);
    for (const auto& p : m.spec.parameters) s.names.push_back(p.name);
    const auto dir = std::filesystem::path(s.run.manifest).parent_path();
    // The reference: the run file's (the Default's values, which may lie outside the
    // space), else the manifest's DEFAULT; and the first valid config besides it.
    const ManifestConfig ref = s.run.reference.size() == m.spec.parameters.size() ? m.configs.make(s.run.reference)
                                                                                  : m.configs[m.default_index()];
    s.reference = {ref.values, (dir / ref.cubin()).string(), (dir / ref.log()).string()};
    const std::size_t other = m.configs[0].id == ref.id ? 1 : 0;
    if (other < m.configs.size()) {
      const ManifestConfig f = m.configs[other];
      s.fallback = Reference{f.values, (dir / f.cubin()).string(), (dir / f.log()).string()};
    }
    s.entry = m.entry;
    return s;
  }();
  return s;
}

// Calls f(T{}) with the C++ type of a T1 element type.
template <typename F>
void with_type(T1Type t, F&& f) {
  switch (t) {
    case T1Type::Bool:
      return f(bool{});
    case T1Type::Int8:
      return f(int8_t{});
    case T1Type::UInt8:
      return f(uint8_t{});
    case T1Type::Int16:
      return f(int16_t{});
    case T1Type::UInt16:
      return f(uint16_t{});
    case T1Type::Int32:
      return f(int32_t{});
    case T1Type::UInt32:
      return f(uint32_t{});
    case T1Type::Int64:
      return f(int64_t{});
    case T1Type::UInt64:
      return f(uint64_t{});
    case T1Type::Half:
      return f(half{});
    case T1Type::Float:
      return f(float{});
    case T1Type::Double:
      return f(double{});
  }
}

// One kernel argument as launched: a device pointer, or a scalar's bytes by value.
struct Arg {
  bool pointer = false;
  CUdeviceptr ptr = 0;
  std::function<void(KernelArgs&)> push_value;  // scalars
};

uint32_t dim(int64_t v) {  // beyond uint32: the worker refuses it as beyond the GPU's limits
  return v < 0 ? 0u : v > int64_t{UINT32_MAX} ? UINT32_MAX : static_cast<uint32_t>(v);
}

// The launch of one config: block and grid as Kernel Tuner computes them; `replace`
// (argument index, pointer) swaps one array, for the Default's run into a reference buffer.
Launch make_launch(const T1Geometry& g, const std::vector<Arg>& args, const std::vector<int64_t>& ps, uint32_t shared,
                   const std::vector<int64_t>& values, int replace = -1, CUdeviceptr with = 0) {
  const auto b = g.block(values), n = g.grid(values, ps);
  Launch l;
  l.block = {dim(b[0]), dim(b[1]), dim(b[2])};
  l.grid = {dim(n[0]), dim(n[1]), dim(n[2])};
  l.shared_bytes = shared;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].pointer)
      args[i].push_value(l.args);
    else
      l.args.push(static_cast<int>(i) == replace ? with : args[i].ptr);
  }
  return l;
}

// Runs the Default config's cubin once with output `replace` written into `ref`: the
// expected output. Every output starts from its fill, and the constants are copied in, as
// before any measured launch.
void run_reference(Harness& h, const T1Setup& s, const Reference& r, const T1Geometry& g, const std::vector<Arg>& args,
                   const std::vector<int64_t>& ps, int replace, CUdeviceptr ref, CUstream stream) {
  std::string why;
  const Driver* d = Driver::get(&why);
  if (!d) throw Error("the Default config cannot run: " + why);
  const std::string config = g.describe(r.values);
  std::ifstream file(r.cubin, std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (image.empty())
    throw Error("the Default config (" + config +
                ") has no cubin: it did not compile, and every config is checked "
                "against its outputs; see " +
                r.log);
  CUmodule module = nullptr;
  d->check(d->cuModuleLoadData(&module, image.data()), "loading the Default config's cubin " + r.cubin);
  struct Unload {
    const Driver* d;
    CUmodule m;
    ~Unload() { d->cuModuleUnload(m); }
  } unload{d, module};
  CUfunction fn = nullptr;
  d->check(d->cuModuleGetFunction(&fn, module, s.entry.c_str()),
           "finding the kernel '" + s.entry + "' (KernelName) in the Default config's cubin");
  for (const auto& copy : h.constants()) {
    const auto& slot = h.slots().at(copy.slot);
    CUdeviceptr symbol = 0;
    std::size_t bytes = 0;
    d->check(d->cuModuleGetGlobal(&symbol, &bytes, module, copy.symbol.c_str()),
             "finding the __constant__ variable '" + copy.symbol +
                 "' (an argument with MemType Constant) in the "
                 "Default config's cubin");
    if (bytes < slot.bytes)
      throw Error("__constant__ variable '" + copy.symbol + "' has " + std::to_string(bytes) +
                  " bytes; its argument's Size gives " + std::to_string(slot.bytes));
    d->check(d->cuMemcpyHtoD(symbol, slot.host.data(), slot.bytes), "copying to __constant__ " + copy.symbol);
  }
  for (const auto& slot : h.slots())
    if (slot.output) d->check(d->cuMemcpyHtoD(slot.device, slot.host.data(), slot.bytes), "resetting an output");
  // Copies from pageable memory (these, and `ref`'s fill) may still be in flight when the
  // calls return, and `stream` does not wait for them.
  d->check(d->cuCtxSynchronize(), "copying the Default config's inputs");
  Launch l = make_launch(g, args, ps, s.kernel.shared_memory, r.values, replace, ref);
  if (l.shared_bytes > 48 * 1024)
    d->check(
        d->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared_bytes)),
        "opting in to dynamic shared memory for the Default config");
  const Config def(s.names, r.values);
  const LaunchConfig cfg(l, def.get_or("num_ctas", 1), stream);
  d->check(d->cuLaunchKernelEx(cfg.get(), fn, l.args.pointers(), nullptr),
           "launching the Default config (" + config + ", block " + std::to_string(l.block.x) + "x" +
               std::to_string(l.block.y) + "x" + std::to_string(l.block.z) + ", grid " + std::to_string(l.grid.x) +
               "x" + std::to_string(l.grid.y) + "x" + std::to_string(l.grid.z) + ")");
  d->check(d->cuStreamSynchronize(stream), "running the Default config (" + config + ")");
}

// The expected output: the reference's, or, once the reference failed to run (a launch it
// cannot make on this GPU, say), the fallback's, saying so once on the worker's log.
void run_default(Harness& h, const T1Setup& s, const T1Geometry& g, const std::vector<Arg>& args,
                 const std::vector<int64_t>& ps, int replace, CUdeviceptr ref, CUstream stream) {
  if (!reference_failed || !s.fallback) {
    try {
      return run_reference(h, s, s.reference, g, args, ps, replace, ref, stream);
    } catch (const Error& e) {
      if (!s.fallback) throw;
      reference_failed = true;
      std::cerr << "ktune: warning: the reference config (" << g.describe(s.reference.values)
                << ") did not run: " << e.what() << "; the first valid config (" << g.describe(s.fallback->values)
                << ") gives the reference outputs instead\n";
    }
  }
  run_reference(h, s, *s.fallback, g, args, ps, replace, ref, stream);
}

// --save-arguments: each array as it starts, each output as the Default config left it.
void save_arguments(const Harness& h, const T1Setup& s, const std::vector<int64_t>& ps) {
  const auto dir = std::filesystem::path(s.run.save_arguments) / t1_size_text(t1_key(ps));
  std::size_t slot = 0;  // arrays have slots in argument order; scalars have none unless constant
  for (const auto& a : s.kernel.arguments) {
    if (!a.vector) {
      slot += a.constant;
      continue;
    }
    std::string name = a.name;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    const auto& data = h.slots().at(slot++);
    auto bytes = [](const std::vector<std::byte>& b) {
      return std::string(reinterpret_cast<const char*>(b.data()), b.size());
    };
    write_file_atomic(dir / (name + ".bin"), bytes(data.host));
    if (a.output) write_file_atomic(dir / (name + ".expected.bin"), bytes(data.expected));
  }
}

}  // namespace

void ktune_harness(ktune::Harness& h) {
  const T1Setup& s = setup();
  if (s.reference.values.empty()) throw Error(s.run.manifest + ": the Default config is not among its configs");
  const std::vector<int64_t> ps = t1_problem_size(h.key_values());
  auto geometry = std::make_shared<const T1Geometry>(s.kernel, s.names, s.run.spec);

  std::vector<Arg> args;
  std::vector<std::function<void()>> expectations;  // one per output, once every argument exists
  for (std::size_t i = 0; i < s.kernel.arguments.size(); ++i) {
    const T1Argument& a = s.kernel.arguments[i];
    const std::string field =
        s.run.spec + ": KernelSpecification.Arguments[" + std::to_string(i) + "] (" + a.name + ")";
    Arg arg;
    with_type(a.type, [&]<typename T>(T) {
      if (!a.vector) {
        const T value = static_cast<T>(a.value);
        arg.push_value = [value](KernelArgs& k) { k.push(value); };
        if (a.constant) {
          if constexpr (std::is_same_v<T, bool>)
            h.constant(a.name, h.input<uint8_t>(1, fill::constant(a.value)));
          else
            h.constant(a.name, h.input<T>(1, fill::constant(a.value)));
        }
        return;
      }
      if constexpr (std::is_same_v<T, bool>) {
        throw Error(field + ": bool vectors are not supported");
      } else {
        const auto n = static_cast<std::size_t>(t1_elements(a.size, s.space, ps, field + ".Size"));
        const Fill f = a.fill == T1Argument::Fill::Constant ? fill::constant(a.value)
                       : is_floating(a.type)                ? fill::random(a.seed, -1.0, 1.0)
                                                            : fill::random(a.seed, 0.0, 100.0);
        Tolerance tol = default_tolerance<T>();
        if (s.run.atol) tol.abs = *s.run.atol;
        if (s.run.rtol) tol.rel = *s.run.rtol;
        Buffer<T> b = a.output ? h.output<T>(n, f, tol) : h.input<T>(n, f);
        if (a.constant) h.constant(a.name, b);
        arg.pointer = true;
        arg.ptr = b.ptr;
        if (a.output)
          expectations.push_back([&h, &s, &args, geometry, ps, b, index = static_cast<int>(i)] {
            h.expect_on_device(b, [&](Buffer<T> ref, CUstream stream) {
              run_default(h, s, *geometry, args, ps, index, ref.ptr, stream);
            });
          });
      }
    });
    args.push_back(std::move(arg));
  }
  for (auto& expect : expectations) expect();
  if (!s.run.save_arguments.empty()) save_arguments(h, s, ps);

  h.launch([geometry, args, ps, shared = s.kernel.shared_memory, names = s.names](const Config& c) {
    std::vector<int64_t> values;
    for (const auto& n : names) values.push_back(c[n]);
    return make_launch(*geometry, args, ps, shared, values);
  });
}
