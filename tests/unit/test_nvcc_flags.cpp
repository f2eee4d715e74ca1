// The one rule for users' nvcc flags (nvcc_flags.hpp): every spelling of an option that
// selects the compiler, an output, the architecture or a macro ktune sets is refused, and
// ordinary flags pass. The paths that apply it (FLAGS, T1 CompilerOptions, --flag, the
// manifest) are tested in test_build_plan.cpp and test_t1_plan.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "error_of.hpp"
#include "ktune/nvcc_flags.hpp"

namespace {

using ktune::test_support::error_of;

const ktune::NvccFlagRules kRules{{"A", "bug", "maxnreg"}, {"kernel_tuner"}, "use ARCH instead"};

// The message for `flags`, each named "FLAGS[i] '<flag>'"; "no error" when they pass.
std::string refusal(const std::vector<std::string>& flags) {
  return error_of([&] {
    ktune::check_nvcc_flags(flags, kRules,
                            [&](std::size_t i) { return "FLAGS[" + std::to_string(i) + "] '" + flags[i] + "'"; });
  });
}

void expect_refused(const std::vector<std::string>& flags, const std::string& named, const std::string& why) {
  const std::string m = refusal(flags);
  EXPECT_NE(m.find(named + " " + why), std::string::npos) << "flags: " << testing::PrintToString(flags) << "\n" << m;
}

}  // namespace

TEST(NvccFlags, OrdinaryFlagsPass) {
  EXPECT_EQ(refusal({"-O3", "-lineinfo", "--use_fast_math", "-std=c++17", "-DB=1", "-DAB=2", "-D", "B_A", "-UNDEBUG",
                     "--define-macro=C=1", "-Xptxas", "-v", "-Xcompiler", "-c", "-I/x", "--extended-lambda",
                     "-opt-info=inline", "-use_fast_math"}),
            "no error");
  // -maxrregcount is refused only where a parameter maxnreg sets it.
  EXPECT_EQ(error_of([] {
              ktune::check_nvcc_flags({"-maxrregcount=32"}, {{"A"}, {}, ""}, [](std::size_t) { return "f"; });
            }),
            "no error");
}

TEST(NvccFlags, CompilerSelectionIsRefusedInEverySpelling) {
  const std::string why = "selects the host compiler, and no flag may choose which program a compile runs; drop it";
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{{"-ccbin=/tmp/evil.sh"},
                                                                                     {"-ccbin", "/tmp/evil.sh"},
                                                                                     {"--compiler-bindir=/tmp/evil.sh"},
                                                                                     {"--compiler-bindir", "/tmp/x"},
                                                                                     {"-ccbin/tmp/x"},
                                                                                     {"-compiler-bindir=/tmp/x"},
                                                                                     {"--ccbin=/tmp/x"}})
    expect_refused(flags, "FLAGS[0] '" + flags[0] + "'", why);
  expect_refused({"--run"}, "FLAGS[0] '--run'", "runs the compiled program");
  expect_refused({"-run-args", "x"}, "FLAGS[0] '-run-args'", "runs the compiled program");
  expect_refused({"-O2", "--options-file", "more.txt"}, "FLAGS[1] '--options-file'", "reads more flags from a file");
  expect_refused({"-optf=more.txt"}, "FLAGS[0] '-optf=more.txt'", "reads more flags from a file");
}

TEST(NvccFlags, OutputsAndModesAreRefused) {
  const std::string why =
      "sets what nvcc writes or where, which ktune sets for every config (a cubin and its "
      "dependency file); drop it";
  for (const char* flag : {"-o",
                           "--output-file=x.cubin",
                           "-odir",
                           "--output-directory=/tmp",
                           "-MF",
                           "-MF=x.d",
                           "--dependency-output",
                           "-MT",
                           "-MD",
                           "-MMD",
                           "-M",
                           "-MM",
                           "--generate-dependencies",
                           "-E",
                           "--preprocess",
                           "-c",
                           "--compile",
                           "-cubin",
                           "--cubin",
                           "-ptx",
                           "-fatbin",
                           "-dc",
                           "--device-c",
                           "-dlink",
                           "-lib",
                           "-keep-dir=/tmp",
                           "-optix-ir",
                           "-cuda"})
    expect_refused({"-O3", flag, "x"}, std::string("FLAGS[1] '") + flag + "'", why);
}

TEST(NvccFlags, ArchitectureIsRefusedInEverySpelling) {
  for (const char* flag : {"-arch=sm_80", "-arch", "--gpu-architecture=sm_80", "--gpu-architecture", "-code=sm_80",
                           "--gpu-code", "-gencode", "-gencode=arch=compute_80,code=sm_80", "--generate-code",
                           "-arch=native", "--arch=sm_80", "-arch sm_80"})
    expect_refused({flag, "sm_80"}, std::string("FLAGS[0] '") + flag + "'",
                   "sets the architecture, which ktune sets for every cubin; use ARCH instead");
}

TEST(NvccFlags, ParameterMacrosAreRefusedJoinedSeparateOrListed) {
  const std::string why = "sets the macro of parameter ";
  const std::string fix = ", which ktune sets to each config's value; drop it or rename the parameter";
  expect_refused({"-DA=3"}, "FLAGS[0] '-DA=3'", why + "A" + fix);
  expect_refused({"-DA"}, "FLAGS[0] '-DA'", why + "A" + fix);
  expect_refused({"-Dbug=1"}, "FLAGS[0] '-Dbug=1'", why + "bug" + fix);
  expect_refused({"-UA"}, "FLAGS[0] '-UA'", why + "A" + fix);
  expect_refused({"-O3", "-D", "A=1"}, "FLAGS[1] '-D'", why + "A" + fix);
  expect_refused({"-U", "A"}, "FLAGS[0] '-U'", why + "A" + fix);
  expect_refused({"--define-macro=A=2"}, "FLAGS[0] '--define-macro=A=2'", why + "A" + fix);
  expect_refused({"--define-macro", "A"}, "FLAGS[0] '--define-macro'", why + "A" + fix);
  expect_refused({"--undefine-macro=bug"}, "FLAGS[0] '--undefine-macro=bug'", why + "bug" + fix);
  expect_refused({"-DX=1,A=2"}, "FLAGS[0] '-DX=1,A=2'", why + "A" + fix);  // nvcc splits the list at commas
  expect_refused({"-DA(x)=x"}, "FLAGS[0] '-DA(x)=x'", why + "A" + fix);
  expect_refused({"-Dkernel_tuner=0"}, "FLAGS[0] '-Dkernel_tuner=0'",
                 "sets the macro kernel_tuner, which ktune defines for every config; drop it");
  expect_refused({"-maxrregcount=32"}, "FLAGS[0] '-maxrregcount=32'",
                 "caps registers, which the parameter maxnreg sets for each config; drop it");
}

TEST(NvccFlags, EmptyFlagsAndGeneratorExpressionsAreRefused) {
  expect_refused({"-O2", ""}, "FLAGS[1] ''", "is empty (a variable or generator expression that yields nothing?)");
  expect_refused({" "}, "FLAGS[0] ' '", "is empty");
  expect_refused({"$<$<CONFIG:Debug>:-G>"}, "FLAGS[0] '$<$<CONFIG:Debug>:-G>'",
                 "is a generator expression, which ktune's own compiles (the tuner's, the bake's) cannot evaluate");
}
