// xLLM's service (xLLM-AI/xllm-service, xllm_service/): lines of its master
// election whose glog level says more than the line means. The templates match
// the message after glog's prefix.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const templates: LogTemplate[] = [
  {
    id: "xllmService.no_master_yet",
    kind: LogKind.message,
    checked: "✔",
    level: "error (glog `E`), read as information",
    format:
      "etcd get XLLM:SERVICE:MASTER failed: etcd-cpp-apiv3: key not found — the service looks up the master's key in etcd, and the key is not there: no master is registered yet, so this service registers itself and logs `Set current service as master!` next; the first master's start-up, not a failure (any other error of that lookup, or a lookup of another key, is read as the error it states)",
    source:
      "xllm_service/scheduler/scheduler.cpp Scheduler::Scheduler (`if (!etcd_client_->get(ETCD_MASTER_SERVICE_KEY, nullptr))` then `etcd_client_->set(ETCD_MASTER_SERVICE_KEY, …)` and `LOG(INFO) << \"Set current service as master!\"`), xllm_service/scheduler/etcd_client/etcd_client.cpp EtcdClient::get (`LOG(ERROR) << \"etcd get \" << key << \" failed: \" << response.error_message()`) (xLLM-AI/xllm-service, index copies 0b3f2aa3, 4217d5c4)",
    head: "etcd get XLLM:SERVICE:MASTER failed: ",
    pattern: /etcd get (?<key>XLLM:SERVICE:MASTER) failed: etcd-cpp-apiv3: key not found$/y,
    attrs: { level: "info", etcdKey: cap("key"), note: "no master registered yet: this service becomes the master" },
    samples: ["E20251022 15:08:56.529011 140899 etcd_client.cpp:104] etcd get XLLM:SERVICE:MASTER failed: etcd-cpp-apiv3: key not found"],
  },
];

export const XLLM_SERVICE: TemplateComponent = {
  name: "xllmService",
  dialect: "engine",
  title: "xLLM service: the master election",
  intro:
    "`xLLM-AI/xllm-service` `xllm_service/scheduler/`: a service starting looks up the master's etcd key (`XLLM:SERVICE:MASTER`); its etcd client logs every failed lookup at glog's ERROR level, the key's absence included, which is how the first master finds there is none. That one line is read as the start-up it is. Event: `log.message` (`level: info`, `etcdKey`).",
  templates,
};
