// The tuner ↔ worker messages: what one side writes, the other reads back whole.
#include <gtest/gtest.h>

#include "ktune/error.hpp"
#include "ktune/worker_protocol.hpp"

namespace ktune {
namespace {

using nlohmann::json;

TEST(WorkerProtocol, MeasureRequestRoundTrips) {
  MeasureRequest r;
  r.key = {{"M", 4096}, {"N", 512}};
  r.entry = "sgemm";
  r.config_id = "c0ffee";
  r.names = {"TM", "TN"};
  r.values = {64, 128};
  r.cubin = "/tmp/x.cubin";
  r.rule.min_samples = 7;
  r.rule.max_samples = 99;
  r.rule.target_rel_ci = 0.02;
  r.rule.max_seconds = 1.5;
  r.rule.abandon_factor = 3;
  r.warmup = 4;
  r.best_ms = 0.25;
  const json j = r.to_json();
  EXPECT_EQ(request_op(j), "measure");
  const MeasureRequest back = MeasureRequest::from_json(j);
  EXPECT_EQ(back.key, r.key);
  EXPECT_EQ(back.entry, r.entry);
  EXPECT_EQ(back.config_id, r.config_id);
  EXPECT_EQ(back.names, r.names);
  EXPECT_EQ(back.values, r.values);
  EXPECT_EQ(back.cubin, r.cubin);
  EXPECT_EQ(back.rule.min_samples, 7u);
  EXPECT_EQ(back.rule.max_samples, 99u);
  EXPECT_DOUBLE_EQ(back.rule.target_rel_ci, 0.02);
  EXPECT_DOUBLE_EQ(back.rule.max_seconds, 1.5);
  EXPECT_DOUBLE_EQ(back.rule.abandon_factor, 3);
  EXPECT_EQ(back.warmup, 4);
  EXPECT_DOUBLE_EQ(back.best_ms, 0.25);
}

TEST(WorkerProtocol, MeasureRequestWithoutAFieldIsRefused) {
  json j = MeasureRequest{}.to_json();
  j["config"].erase("cubin");
  EXPECT_ANY_THROW(MeasureRequest::from_json(j));
  json k = MeasureRequest{}.to_json();
  k.erase("best_ms");  // optional: no best yet
  EXPECT_DOUBLE_EQ(MeasureRequest::from_json(k).best_ms, -1);
}

TEST(WorkerProtocol, ReadyReplyRoundTrips) {
  ReadyReply r{true, "", {}, 3};
  r.gpu.name = "NVIDIA H200";
  r.gpu.cc_major = 9;
  r.gpu.sm_count = 132;
  r.gpu.driver_version = 13000;
  const ReadyReply back = ReadyReply::from_json(r.to_json());
  EXPECT_TRUE(back.ready);
  EXPECT_EQ(back.gpu.name, "NVIDIA H200");
  EXPECT_EQ(back.gpu.sm_count, 132);
  EXPECT_EQ(back.visible_gpus, 3);

  const ReadyReply none = ReadyReply::from_json(ReadyReply{false, "no CUDA driver", {}, 0}.to_json());
  EXPECT_FALSE(none.ready);
  EXPECT_EQ(none.why, "no CUDA driver");
  EXPECT_EQ(ReadyReply::from_json(json{{"ready", false}}).why, "no GPU");
}

TEST(WorkerProtocol, PrepareRequestNamesTheKey) {
  const json j = PrepareRequest{{{"N", 8}}}.to_json();
  EXPECT_EQ(request_op(j), "prepare");
  EXPECT_EQ(j.at("key").at("N").get<int>(), 8);
  EXPECT_EQ(request_op(json::object()), "");
}

}  // namespace
}  // namespace ktune
