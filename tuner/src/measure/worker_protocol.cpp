#include "ktune/worker_protocol.hpp"

namespace ktune {

using nlohmann::json;

json ReadyReply::to_json() const {
  if (!ready) return {{"ready", false}, {"why", why}};
  return {{"ready", true}, {"gpu", gpu.to_json()}, {"visible_gpus", visible_gpus}};
}

ReadyReply ReadyReply::from_json(const json& j) {
  ReadyReply r;
  r.ready = j.value("ready", false);
  if (!r.ready) {
    r.why = j.value("why", std::string("no GPU"));
    return r;
  }
  r.gpu = GpuIdentity::from_json(j.at("gpu"));
  r.visible_gpus = std::max(1, j.value("visible_gpus", 1));
  return r;
}

json PrepareRequest::to_json() const { return {{"op", "prepare"}, {"key", key}}; }

json MeasureRequest::to_json() const {
  return {{"op", "measure"},
          {"key", key},
          {"entry", entry},
          {"config", {{"id", config_id}, {"names", names}, {"values", values}, {"cubin", cubin}}},
          {"rule",
           {{"min_samples", rule.min_samples},
            {"max_samples", rule.max_samples},
            {"target_rel_ci", rule.target_rel_ci},
            {"max_seconds", rule.max_seconds},
            {"abandon_factor", rule.abandon_factor},
            {"warmup", warmup}}},
          {"best_ms", best_ms}};
}

MeasureRequest MeasureRequest::from_json(const json& j) {
  MeasureRequest r;
  r.key = j.at("key").get<Key>();
  r.entry = j.at("entry").get<std::string>();
  const json& c = j.at("config");
  r.config_id = c.at("id").get<std::string>();
  r.names = c.at("names").get<std::vector<std::string>>();
  r.values = c.at("values").get<std::vector<int64_t>>();
  r.cubin = c.at("cubin").get<std::string>();
  const json& rule = j.at("rule");
  r.rule.min_samples = rule.at("min_samples").get<std::size_t>();
  r.rule.max_samples = rule.at("max_samples").get<std::size_t>();
  r.rule.target_rel_ci = rule.at("target_rel_ci").get<double>();
  r.rule.max_seconds = rule.at("max_seconds").get<double>();
  r.rule.abandon_factor = rule.at("abandon_factor").get<double>();
  r.warmup = rule.value("warmup", 2);
  r.best_ms = j.value("best_ms", -1.0);
  return r;
}

std::string request_op(const json& request) { return request.value("op", std::string()); }

}  // namespace ktune
