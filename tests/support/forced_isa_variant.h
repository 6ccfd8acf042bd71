// A test parameterised over the CPU kernels' ISA variants built here (tts/kernels/cpu_isa.h): each
// test runs with its variant forced, and is skipped, with the reason, where this CPU cannot run it.
//   class MyKernel : public tts::testing_support::ForcedIsaVariant {};
//   INSTANTIATE_TEST_SUITE_P(Cpu, MyKernel,
//                            ::testing::ValuesIn(tts::testing_support::built_variant_names()),
//                            ...);
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tts/kernels/cpu_isa.h"

namespace tts::testing_support {

inline std::vector<std::string> built_variant_names() {
  std::vector<std::string> names;
  for (const kernels::CpuIsaVariant& v : kernels::cpu_isa_variants()) names.push_back(v.name);
  return names;
}

class ForcedIsaVariant : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    for (const kernels::CpuIsaVariant& v : kernels::cpu_isa_variants())
      if (v.name == GetParam()) variant_ = v;
    ASSERT_EQ(variant_.name, GetParam());
    if (!variant_.runs_here)
      GTEST_SKIP() << "this CPU cannot run the " << variant_.name << " variant ("
                   << variant_.description << ")";
    previous_ = kernels::cpu_isa();
    kernels::force_cpu_isa(variant_.name);
    ASSERT_EQ(std::string(kernels::cpu_isa()), variant_.name);
  }
  void TearDown() override {
    if (!previous_.empty()) kernels::force_cpu_isa(previous_);
  }

  kernels::CpuIsaVariant variant_;  // the variant forced
  std::string previous_;            // the one before, restored after the test
};

}  // namespace tts::testing_support
