#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/measurement.hpp"

namespace {

using nlohmann::json;

ktune::Measurement sample_measurement() {
  ktune::Measurement m;
  m.status = ktune::Status::Ok;
  m.samples_ms = {0.5, 0.25, 0.75};
  m.median_ms = 0.5;
  m.abandoned = true;
  m.max_error = 1e-6;
  m.resources = {.registers = 128, .static_shared_bytes = 49152, .local_bytes = 16, .max_threads_per_block = 256};
  m.message = "slow but right";
  m.seconds = 1.5;
  return m;
}

// The message of the Error from_json throws, or "no error".
std::string rejection(const json& j) {
  try {
    ktune::Measurement::from_json(j);
  } catch (const ktune::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Measurement, JsonRoundTrip) {
  ktune::Measurement m = sample_measurement();
  m.at = 1764745200.25;
  const json j = m.to_json();
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["samples_ms"], json({0.5, 0.25, 0.75}));
  EXPECT_EQ(j["resources"]["static_shared_bytes"], 49152);
  const ktune::Measurement back = ktune::Measurement::from_json(j);
  EXPECT_EQ(back.status, m.status);
  EXPECT_EQ(back.samples_ms, m.samples_ms);
  EXPECT_EQ(back.median_ms, m.median_ms);
  EXPECT_EQ(back.abandoned, m.abandoned);
  EXPECT_EQ(back.max_error, m.max_error);
  EXPECT_EQ(back.resources.registers, 128);
  EXPECT_EQ(back.resources.static_shared_bytes, 49152);
  EXPECT_EQ(back.resources.local_bytes, 16);
  EXPECT_EQ(back.resources.max_threads_per_block, 256);
  EXPECT_EQ(back.message, m.message);
  EXPECT_EQ(back.seconds, m.seconds);
  EXPECT_EQ(back.at, m.at);
  EXPECT_FALSE(sample_measurement().to_json().contains("at")) << "an unknown time is left out";
  // Through text too, as the DB stores it.
  EXPECT_EQ(ktune::Measurement::from_json(json::parse(j.dump())).to_json(), j);
}

TEST(Measurement, EveryStatusHasAName) {
  using S = ktune::Status;
  for (S s : {S::Ok, S::CompileFailed, S::Resource, S::LaunchFailed, S::Crashed, S::TimedOut, S::WrongResult})
    EXPECT_EQ(ktune::status_from_string(ktune::to_string(s)), s);
  EXPECT_STREQ(ktune::to_string(S::WrongResult), "wrong-result");
  EXPECT_STREQ(ktune::to_string(S::TimedOut), "timed-out");
  EXPECT_THROW(ktune::status_from_string("fast"), ktune::Error);
}

TEST(Measurement, AbsentFieldsTakeTheirDefaults) {
  auto m = ktune::Measurement::from_json({{"status", "crashed"}, {"message", "signal 11"}});
  EXPECT_EQ(m.status, ktune::Status::Crashed);
  EXPECT_EQ(m.message, "signal 11");
  EXPECT_TRUE(m.samples_ms.empty());
  EXPECT_EQ(m.resources.registers, 0);
}

TEST(Measurement, NonFiniteErrorIsStoredAsNullAndReadAsInfinity) {
  ktune::Measurement m = sample_measurement();
  m.status = ktune::Status::WrongResult;
  m.max_error = std::nan("");
  json j = m.to_json();
  EXPECT_TRUE(j["max_error"].is_null());
  EXPECT_TRUE(std::isinf(ktune::Measurement::from_json(json::parse(j.dump())).max_error));
}

TEST(Measurement, RejectsMalformedInputNamingTheField) {
  const json good = sample_measurement().to_json();
  struct Case {
    const char* field;  // json pointer of the mutated field
    json value;
    const char* named;  // what the message must mention
  };
  const Case cases[] = {
      {"/status", 5, "status"},
      {"/status", "fast", "fast"},
      {"/samples_ms", "1,2", "samples_ms"},
      {"/samples_ms", json({1.0, "a"}), "samples_ms[1]"},
      {"/samples_ms", json({1.0, -2.0}), "samples_ms[1]"},
      {"/samples_ms", json({1.0, nullptr}), "samples_ms[1]"},
      {"/median_ms", "0.5", "median_ms"},
      {"/median_ms", -1, "median_ms"},
      {"/abandoned", 1, "abandoned"},
      {"/max_error", "big", "max_error"},
      {"/resources", json::array(), "resources"},
      {"/resources/registers", 1.5, "resources.registers"},
      {"/resources/registers", -1, "resources.registers"},
      {"/resources/registers", 99999999999LL, "resources.registers"},
      {"/resources/local_bytes", json::parse("18446744073709551615"), "resources.local_bytes"},
      {"/resources/max_threads_per_block", 1e300, "resources.max_threads_per_block"},
      {"/message", 3, "message"},
      {"/seconds", -0.5, "seconds"},
      {"/seconds", true, "seconds"},
  };
  for (const Case& c : cases) {
    json bad = good;
    bad[json::json_pointer(c.field)] = c.value;
    std::string message = rejection(bad);
    EXPECT_NE(message.find(c.named), std::string::npos) << c.field << " = " << c.value.dump() << " gave: " << message;
  }
  json no_status = good;
  no_status.erase("status");
  EXPECT_NE(rejection(no_status).find("status"), std::string::npos);
  EXPECT_NE(rejection(json::array()).find("object"), std::string::npos);
  EXPECT_NE(rejection("ok").find("object"), std::string::npos);
}

TEST(Measurement, HugeButFiniteTimesAreKept) {
  json j = {{"status", "ok"}, {"samples_ms", {1e308, 0.0}}, {"median_ms", 1e308}};
  auto m = ktune::Measurement::from_json(json::parse(j.dump()));
  EXPECT_EQ(m.samples_ms[0], 1e308);
}
