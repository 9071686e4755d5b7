// The debug adapter's replay (dap/dap_replay.h) on real checks: the samples
// are checked with runFile + checkJson exactly as `tsocheck check --json`
// and `tsocheck dap` do, and the replayed state is compared with the trace.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "service/check_options.h"
#include "service/check_runner.h"
#include "dap/dap_replay.h"
#include "dap/dap_session.h"
#include "service/report_json.h"

using namespace tsocheck;
using tsocheck::dap::PendingStore;
using tsocheck::dap::Replay;
using nlohmann::json;

namespace {

json checkOf(const std::string& sample, Model model) {
  RunOptions o;
  o.model = model;
  o.fences = false;
  FileReport fr = runFile(std::string(TSOCHECK_SAMPLES_DIR) + "/" + sample, o);
  REQUIRE_FALSE(fr.inputError);
  REQUIRE(fr.checks.size() == 1);
  return checkJson(fr.checks[0]);
}

Replay replayOf(const std::string& sample, Model model) {
  std::string why;
  auto r = Replay::fromCheck(checkOf(sample, model), &why);
  INFO(why);
  REQUIRE(r);
  return *r;
}

// The first trace index at or after `from` whose step matches.
size_t find(const Replay& r, uint32_t thread, const std::string& event, const std::string& address, size_t from = 0) {
  for (size_t i = from; i < r.size(); ++i) {
    const json& s = r.step(i);
    const std::string a = s["address"].is_string() ? s["address"].get<std::string>() : "";
    if (s["thread"] == thread && s["event"] == event && a == address) return i;
  }
  FAIL("no step T" << thread << " " << event << " " << address);
  return 0;
}

// "x=1@16" per entry: address, value and the line of the store behind it.
std::vector<std::string> bufferOf(const Replay& r, size_t i, uint32_t thread) {
  std::vector<std::string> out;
  const auto st = r.stateAt(i);
  for (const PendingStore& p : st.buffers.at(thread))
    out.push_back(p.address + "=" + p.value.dump() + "@" + std::to_string(p.line));
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("replay of SB under TSO: buffers, stale read, memory, threads") {
  Replay r = replayOf("litmus/sb.c", Model::TSO);
  REQUIRE(r.threadCount() == 3);
  CHECK(r.threadName(0) == "T0 (main)");
  CHECK(r.threadName(1) == "T1 (t1)");
  CHECK(r.threadName(2) == "T2 (t2)");
  CHECK(r.position() == 0);
  CHECK(r.current()["event"] == "spawn");
  CHECK(r.current()["line"] == 29);

  const size_t storeX = find(r, 1, "store", "x");
  const size_t storeY = find(r, 2, "store", "y");
  const size_t loadX = find(r, 2, "load-memory", "x");
  const size_t flushX = find(r, 1, "flush", "x");
  CHECK(bufferOf(r, storeX, 1) == V{"x=1@16"});
  CHECK(bufferOf(r, storeX - 1, 1).empty());
  CHECK(bufferOf(r, storeY, 2) == V{"y=1@22"});
  CHECK(bufferOf(r, loadX, 1) == V{"x=1@16"});
  CHECK(bufferOf(r, flushX, 1).empty());

  // T2 reads x from memory while T1 still buffers x = 1: the stale read.
  auto st = r.stateAt(loadX);
  REQUIRE(st.staleRead);
  CHECK(st.staleRead->thread == 2);
  CHECK(st.staleRead->address == "x");
  CHECK(st.staleRead->value == 0);
  CHECK(st.staleRead->line == 23);
  CHECK(st.staleRead->pendingIn == 1);
  CHECK(st.staleRead->pendingValue == 1);
  CHECK(st.staleRead->pendingLine == 16);
  CHECK(st.memory["x"] == 0);
  // T1's load of y happens before T2 stores y: not stale.
  CHECK_FALSE(r.stateAt(find(r, 1, "load-memory", "y")).staleRead);
  // Reads so far.
  REQUIRE(st.reads[2].size() == 1);
  CHECK(st.reads[2][0].address == "x");
  CHECK_FALSE(st.reads[2][0].fromBuffer);
  CHECK(st.reads[2][0].line == 23);
  CHECK(st.reads[1].size() == 1);
  CHECK(st.reads[0].empty());
  // After the flush memory knows x = 1.
  CHECK(r.stateAt(flushX).memory["x"] == 1);

  // Last step: the failing assertion; everything has reached memory.
  const size_t last = r.size() - 1;
  CHECK(r.step(last)["event"] == "error");
  CHECK(r.step(last)["line"] == 33);
  auto end = r.stateAt(last);
  for (const auto& b : end.buffers) CHECK(b.empty());
  CHECK(end.memory["r1"] == 0);
  CHECK(end.memory["r2"] == 0);
  CHECK(end.memory["y"] == 1);
  CHECK(r.violation()["line"] == 33);
}

TEST_CASE("replay of relaxed message passing under RC11: steps in po ∪ rf order, what each thread may still read") {
  dap::Session session;
  session.replay = replayOf("c11_mp_relaxed_buggy.c", Model::RC11);
  Replay& r = *session.replay;
  CHECK(r.rc11());
  const size_t storeData = find(r, 1, "store", "data");
  const size_t loadFlag = find(r, 2, "load-memory", "flag");
  const size_t loadData = find(r, 2, "load-memory", "data");
  // Stepping order: every read after the write it read.
  CHECK(r.step(loadFlag)["rc11"]["reads_from"] == find(r, 1, "store", "flag") + 1);
  for (size_t i = 0; i < r.size(); ++i) {
    const json& f = r.step(i)["rc11"];
    if (f.is_object() && f["reads_from"].is_number()) CHECK(f["reads_from"].get<size_t>() < r.step(i)["step"].get<size_t>());
  }
  // The step payload carries the explanation and no buffers.
  CHECK(r.step(loadData)["reads"].get<std::string>().find("although T1 stored data = 42") != std::string::npos);
  // Step to the stale read.
  while (r.position() < loadData) REQUIRE(r.next());
  const std::string stored = "42 (T1, step " + std::to_string(storeData + 1) + ")";
  // The Variables view: a "May read" scope instead of the store buffers.
  int64_t mayRead = 0, t2ReadsRef = 0;
  const json scopes = session.scopes();
  for (const json& sc : scopes["scopes"]) {
    CHECK(sc["name"] != "Store buffers");
    if (sc["name"] == "May read") mayRead = sc["variablesReference"];
    if (sc["name"] == "T2 reads") t2ReadsRef = sc["variablesReference"];
  }
  REQUIRE(mayRead != 0);
  int64_t t2 = 0;
  const json threads = session.variables(mayRead);
  for (const json& v : threads["variables"])
    if (v["name"] == "T2 (reader)") {
      CHECK(v["value"].get<std::string>().find("data: 0 or 42") != std::string::npos);
      t2 = v["variablesReference"];
    }
  REQUIRE(t2 != 0);
  std::map<std::string, std::string> t2Reads;
  const json t2Vars = session.variables(t2);
  for (const json& v : t2Vars["variables"]) t2Reads[v["name"]] = v["value"];
  CHECK(t2Reads["data"] == "0 (initial value) or " + stored);
  CHECK(t2Reads["flag"] == "1 (T1, step " + std::to_string(find(r, 1, "store", "flag") + 1) + ")");
  // The writer's own store happens before it: it may read nothing older.
  bool writerSeen = false;
  for (const ReadableLocation& l : r.mayRead(1))
    if (l.address == "data") {
      CHECK(readableText(l) == stored);
      writerSeen = true;
    }
  CHECK(writerSeen);
  CHECK(session.evaluate("data").find("T2 may read data = 0 (initial value) or " + stored) != std::string::npos);
  CHECK(r.stateJson()["mayRead"][2].is_array());
  // Reads are not said to come from memory.
  REQUIRE(t2ReadsRef != 0);
  const std::string reads = session.variables(t2ReadsRef)["variables"].dump();
  CHECK(reads.find("memory") == std::string::npos);
}

TEST_CASE("replay stepping bounds and stateJson") {
  Replay r = replayOf("litmus/sb.c", Model::TSO);
  CHECK_FALSE(r.back());
  CHECK(r.position() == 0);
  CHECK(r.next());
  CHECK(r.position() == 1);
  CHECK(r.back());
  CHECK(r.position() == 0);
  r.toEnd();
  CHECK(r.atEnd());
  CHECK(r.position() == r.size() - 1);
  CHECK_FALSE(r.next());
  CHECK(r.position() == r.size() - 1);
  CHECK(r.nextEventLabel() == "— end of trace (violation)");
  r.toStart();
  CHECK(r.nextEventLabel() == r.label(1));

  // Thread frames: T1 has not started at step 0; at its exit it has exited.
  CHECK_FALSE(r.started(1));
  CHECK(r.started(0));
  // Step 0 spawns T1 (it exists, has not run); T2 is spawned at step 1.
  CHECK(r.spawned(0));
  CHECK(r.spawned(1));
  CHECK_FALSE(r.spawned(2));
  r.next();
  CHECK(r.spawned(2));
  CHECK_FALSE(r.started(2));
  r.toStart();
  const size_t exit1 = find(r, 1, "exit", "");
  while (r.position() < exit1) r.next();
  CHECK(r.exited(1));
  CHECK(r.lastStepOf(1) == exit1);

  // tsocheckState at the stale read.
  r.toStart();
  const size_t loadX = find(r, 2, "load-memory", "x");
  while (r.position() < loadX) r.next();
  json s = r.stateJson();
  CHECK(s["step"] == loadX);
  CHECK(s["total"] == r.size());
  CHECK(s["current"]["line"] == 23);
  CHECK(s["current"]["label"] == r.label(loadX));
  REQUIRE(s["pending"].size() == 2);
  CHECK(s["pending"][0]["thread"] == 1);
  CHECK(s["pending"][0]["address"] == "x");
  CHECK(s["pending"][0]["line"] == 16);
  CHECK(s["pending"][1]["thread"] == 2);
  CHECK(s["pending"][1]["line"] == 22);
  REQUIRE(s["staleRead"].is_object());
  CHECK(s["staleRead"]["pendingIn"] == 1);
  CHECK(s["violation"]["line"] == 33);
  r.next();
  CHECK(r.stateJson()["staleRead"].is_null());
}

TEST_CASE("replay of Peterson under TSO: FIFO buffer with store lines") {
  Replay r = replayOf("peterson_buggy.c", Model::TSO);
  CHECK(r.threadName(1) == "T1 (worker)");
  CHECK(r.threadName(2) == "T2 (worker)");
  // T2 stores flag[1] (line 20) then turn (line 21): both pending, in order.
  const size_t storeFlag = find(r, 2, "store", "flag[1]");
  const size_t storeTurn = find(r, 2, "store", "turn");
  CHECK(bufferOf(r, storeFlag, 2) == V{"flag[1]=1@20"});
  CHECK(bufferOf(r, storeTurn, 2) == V{"flag[1]=1@20", "turn=0@21"});
  // Its load of flag[0] is served by memory with both stores still buffered.
  const size_t load = find(r, 2, "load-memory", "flag[0]");
  CHECK(bufferOf(r, load, 2) == V{"flag[1]=1@20", "turn=0@21"});
  // Flushes pop the oldest entry.
  const size_t flushFlag = find(r, 2, "flush", "flag[1]");
  CHECK(bufferOf(r, flushFlag, 2) == V{"turn=0@21"});
  CHECK(r.stateAt(flushFlag).memory["flag[1]"] == 1);
  CHECK(bufferOf(r, find(r, 2, "flush", "turn"), 2).empty());
  // The replay agrees with the engine's buffer contents at every step.
  for (size_t i = 0; i < r.size(); ++i) {
    auto st = r.stateAt(i);
    const json& bufs = r.step(i)["buffers"];
    for (uint32_t t = 0; t < r.threadCount(); ++t) {
      REQUIRE(st.buffers[t].size() == bufs[t].size());
      for (size_t k = 0; k < bufs[t].size(); ++k) {
        CHECK(st.buffers[t][k].address == bufs[t][k]["address"]);
        CHECK(st.buffers[t][k].line > 0);  // every entry is matched to its store
      }
    }
  }
  CHECK(r.stateAt(r.size() - 1).memory["counter"] == 1);
  CHECK(r.violation()["line"] == 42);
}

TEST_CASE("replay of Peterson under PSO: a later store flushes first") {
  Replay r = replayOf("peterson_buggy.c", Model::PSO);
  const size_t unlockStore = find(r, 1, "store", "flag[0]", find(r, 1, "store", "counter"));
  CHECK(bufferOf(r, unlockStore, 1) == V{"counter=1@31", "flag[0]=0@26"});
  const size_t unlockFlush = find(r, 1, "flush", "flag[0]", unlockStore);
  CHECK(bufferOf(r, unlockFlush, 1) == V{"counter=1@31"});
  CHECK(r.stateAt(unlockFlush).memory["flag[0]"] == 0);
}

TEST_CASE("replay refuses checks without a violation trace") {
  std::string why;
  CHECK_FALSE(Replay::fromCheck(checkOf("litmus/sb.c", Model::SC), &why));
  CHECK(why.find("no violation") != std::string::npos);
  CHECK_FALSE(Replay::fromCheck(json::array(), &why));
  CHECK_FALSE(Replay::fromCheck(json{{"violation", {{"trace", json::array()}}}}, &why));
  CHECK_FALSE(Replay::fromCheck(json{{"violation", {{"trace", json::array({1, 2})}}}}, &why));
}

TEST_CASE("replay agrees with the engine's buffers on every sample violation") {
  int replayed = 0;
  for (const auto& dir : {std::string(TSOCHECK_SAMPLES_DIR), std::string(TSOCHECK_SAMPLES_DIR) + "/litmus"})
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".c") continue;
      for (Model model : {Model::TSO, Model::PSO}) {
        RunOptions o;
        o.model = model;
        o.fences = false;
        FileReport fr = runFile(entry.path().string(), o);
        for (const CheckReport& c : fr.checks) {
          auto r = Replay::fromCheck(checkJson(c));
          if (!r) continue;
          ++replayed;
          INFO(entry.path().filename().string() << " " << modelName(model) << " " << c.function);
          CHECK(r->size() == c.result.violation->trace.size());
          CHECK(r->violation()["line"] == c.result.violation->loc.line);
          for (size_t i = 0; i < r->size(); ++i) {
            auto st = r->stateAt(i);
            const json& bufs = r->step(i)["buffers"];
            for (uint32_t t = 0; t < r->threadCount() && t < bufs.size(); ++t) {
              INFO("step index " << i << " thread " << t);
              REQUIRE(st.buffers[t].size() == bufs[t].size());
              for (size_t k = 0; k < bufs[t].size(); ++k) {
                CHECK(st.buffers[t][k].address == bufs[t][k]["address"]);
                CHECK(st.buffers[t][k].value == bufs[t][k]["value"]);
                // Each entry is traced to a store of that thread and address.
                const json& store = r->step(st.buffers[t][k].storeIndex);
                CHECK(st.buffers[t][k].line > 0);
                CHECK(store["event"] == "store");
                CHECK(store["thread"] == t);
                CHECK(store["address"] == bufs[t][k]["address"]);
              }
            }
            if (st.staleRead) {
              CHECK(r->step(i)["event"] == "load-memory");
              CHECK(st.staleRead->pendingIn != st.staleRead->thread);
            }
          }
        }
      }
    }
  CHECK(replayed >= 15);  // the buggy samples and the litmus tests, under TSO and PSO (19 today)
}

// The reference: the store buffers replayed from step 0 by the machine's rule
// (a store enters its thread's buffer, a flush removes that thread's oldest
// entry for its address), each entry remembering its store's trace index.
struct RefEntry {
  std::string address;
  json value;
  size_t storeIndex;
};
static std::vector<std::vector<RefEntry>> replayedBuffers(const Replay& r, size_t upTo) {
  std::vector<std::vector<RefEntry>> bufs(r.threadCount());
  for (size_t i = 0; i <= upTo; ++i) {
    const json& s = r.step(i);
    const uint32_t t = s["thread"];
    if (t >= bufs.size() || !s["address"].is_string()) continue;
    const std::string addr = s["address"];
    if (s["event"] == "store" && r.check()["model"] != "SC") bufs[t].push_back({addr, s["value"], i});
    if (s["event"] == "flush")
      for (auto it = bufs[t].begin(); it != bufs[t].end(); ++it)
        if (it->address == addr) {
          bufs[t].erase(it);
          break;
        }
  }
  return bufs;
}

TEST_CASE("the state at any position agrees with a replay from step 0 on a long trace, in any order") {
  RunOptions o;
  o.fences = false;
  FileReport fr = runFile(std::string(TSOCHECK_LSP_INPUTS_DIR) + "/long_trace.c", o);
  REQUIRE_FALSE(fr.inputError);
  REQUIRE(fr.checks.size() == 1);
  std::string why;
  auto r = Replay::fromCheck(checkJson(fr.checks[0]), &why);
  INFO(why);
  REQUIRE(r);
  REQUIRE(r->size() > 200);
  auto same = [&](size_t i) {
    INFO("step " << i);
    const auto a = r->stateAt(i);
    const auto b = replayedBuffers(*r, i);
    CHECK(a.index == i);
    REQUIRE(a.buffers.size() == b.size());
    for (size_t t = 0; t < a.buffers.size(); ++t) {
      REQUIRE(a.buffers[t].size() == b[t].size());
      for (size_t k = 0; k < a.buffers[t].size(); ++k) {
        CHECK(a.buffers[t][k].address == b[t][k].address);
        CHECK(a.buffers[t][k].value == b[t][k].value);
        CHECK(a.buffers[t][k].storeIndex == b[t][k].storeIndex);
        CHECK(a.buffers[t][k].line == r->step(b[t][k].storeIndex)["line"]);
      }
    }
  };
  for (size_t i = 0; i < r->size(); ++i) same(i);
  r->toEnd();
  size_t reads = 0;
  for (const auto& rs : r->state().reads) reads += rs.size();
  CHECK(reads > 40);  // the worker's loads of x, main's load of y
  do {
    const auto& st = r->state();
    CHECK(st.index == r->position());
    const auto ref = replayedBuffers(*r, r->position());
    size_t n = 0, m = 0;
    for (const auto& b : st.buffers) n += b.size();
    for (const auto& b : ref) m += b.size();
    CHECK(n == m);
    // lastStepOf agrees with a scan back from the position.
    for (uint32_t t = 0; t < r->threadCount(); ++t) {
      std::optional<size_t> scan;
      for (size_t i = r->position() + 1; i-- > 0;)
        if (r->step(i)["thread"] == t) {
          scan = i;
          break;
        }
      CHECK(r->lastStepOf(t) == scan);
    }
  } while (r->back());
}
