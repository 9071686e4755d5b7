// Dispatch, settings and results: edits go to the scheduler (lsp/scheduler.h:
// debounce, workers, cancellation); each check goes through the cache and
// comes back as diagnostics, code actions, lenses, hover and traces.
#include "lsp/lsp_server.h"
#include "service/json_text.h"

#include <unistd.h>

#include <filesystem>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "service/check_options.h"
#include "service/compile_db.h"
#include "service/result_cache.h"
#include "service/safe_io.h"
#include "lsp/lsp_documents.h"
#include "lsp/lsp_protocol.h"
#include "lsp/lsp_features.h"
#include "lsp/lsp_settings.h"
#include "lsp/scheduler.h"
#include "service/source_paths.h"
#include "jsonrpc/transport.h"
#include "service/report_json.h"
#include "service/report_reader.h"
#include "service/trace_picture.h"
#include "service/wording.h"

namespace tsocheck::lsp {

namespace {

using Clock = std::chrono::steady_clock;

// The workspace command checks at most this many files of the compile database.
constexpr size_t kMaxWorkspaceFiles = 500;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct RpcError {
  int code;
  std::string message;
};

struct Results {
  int64_t version = 0;
  std::string settingsKey;          // the settings the checks ran with (outcomeSettings)
  std::string text;                 // the document's text the checks saw: fence lines are its lines
  std::vector<CheckReport> checks;  // fresh from the runner, or read back from the cache
  json inputDiagnostics = json::array();
  // The other files the fences go in (headers), read from disk on the worker
  // when the check ended: code actions compute their edits against these and
  // never read a file on the I/O thread. A file that cannot be read is absent.
  std::map<std::string, std::string> fenceFiles;
  // The other translation units the checks' programs were linked from
  // (FileReport::units): an edit to one of them re-checks this document.
  std::vector<std::string> units;
  // tsocheck.compareModels: function -> its verdict under each model
  // (modelVerdictsText), set when the comparison of this very text ended.
  std::map<std::string, std::string> modelLines;
};

// A document's check functions as its latest lowering found them, and the
// text that lowering saw (the ranges are in it).
struct Lowered {
  std::string path, text;
  std::vector<CheckSite> sites;
};

// The texts of the files other than the document that the checks' fences go
// in, as a check read them (from disk, through the guarded reader).
std::map<std::string, std::string> fenceFilesOf(const std::string& path, const std::vector<CheckReport>& checks) {
  std::map<std::string, std::string> out;
  for (const CheckReport& c : checks)
    for (const FenceEdit& f : c.fences) {
      if (sameFile(f.file, path) || out.count(f.file)) continue;
      if (std::optional<std::string> t = readSourceFile(f.file)) out.emplace(f.file, std::move(*t));
    }
  return out;
}

class Server {
 public:
  Server(asio::io_context& io, std::string version) : io_(io), out_(io, 0, 1), version_(std::move(version)) {}

  int run() {
    out_.start([this](const Frame& f) { onFrame(f); }, [this] { stop(); });
    io_.run();
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [id, c] : commandCancels_) c->store(true);
    }
    sched_.stop();  // cancels the running checks, joins the workers
    return exitCode_;
  }

 private:
  // ---- messages ---------------------------------------------------------
  void onFrame(const Frame& f) {
    if (!f.ok) {
      replyError(nullptr, {kParseError, f.error});
      return;
    }
    std::string why;
    std::optional<json> parsed = parseJsonText(f.body, &why);  // also refuses deep nesting
    if (!parsed) {
      replyError(nullptr, {kParseError, why});
      return;
    }
    json& m = *parsed;
    if (!m.is_object()) {
      replyError(nullptr, {kInvalidRequest, "a message must be a JSON object"});
      return;
    }
    const bool hasId = m.contains("id") && (m["id"].is_number_integer() || m["id"].is_string());
    if (!m.contains("method")) {
      if (hasId && (m.contains("result") || m.contains("error"))) onResponse(m);
      else replyError(m.value("id", json(nullptr)), {kInvalidRequest, "no method"});
      return;
    }
    if (!m["method"].is_string() || (m.contains("id") && !hasId)) {
      replyError(hasId ? m["id"] : json(nullptr), {kInvalidRequest, "bad method or id"});
      return;
    }
    const std::string method = m["method"];
    const json params = m.value("params", json::object());
    if (hasId) onRequest(m["id"], method, params);
    else onNotification(method, params);
  }

  void onRequest(const json& id, const std::string& method, const json& params) {
    if (!initialized_ && method != "initialize") return replyError(id, {kServerNotInitialized, "initialize first"});
    if (shutdown_) return replyError(id, {kInvalidRequest, "the server is shutting down"});
    try {
      if (method == "initialize") return reply(id, initialize(read<InitializeParams>(params)));
      if (method == "shutdown") {
        shutdown_ = true;
        return reply(id, nullptr);
      }
      if (method == "textDocument/codeAction") return reply(id, codeActions(read<CodeActionParams>(params)));
      if (method == "textDocument/codeLens") return reply(id, codeLenses(read<DocumentParams>(params)));
      if (method == "textDocument/hover") return reply(id, hover(read<HoverParams>(params)));
      if (method == "tsocheck/trace") {
        const TraceParams p = read<TraceParams>(params);
        return reply(id, trace(p.uri, p.function));
      }
      if (method == "tsocheck/tracePicture") return tracePicture(id, read<PictureParams>(params));
      if (method == "tsocheck/checks") return checks(id, read<DocumentParams>(params).uri);
      if (method == "workspace/executeCommand") return executeCommand(id, read<ExecuteCommandParams>(params));
      replyError(id, {kMethodNotFound, "unknown method " + method});
    } catch (const RpcError& e) {
      replyError(id, e);
    } catch (const json::exception& e) {
      replyError(id, {kInvalidParams, std::string("invalid params: ") + e.what()});
    } catch (const std::exception& e) {
      replyError(id, {kInternalError, e.what()});
    }
  }

  void onNotification(const std::string& method, const json& params) {
    if (method == "exit") {
      exitCode_ = shutdown_ ? 0 : 1;
      return stop();
    }
    if (!initialized_ || shutdown_) return;
    try {
      std::string bad;
      if (method == "textDocument/didOpen") {
        DidOpenParams p;
        if (!fromJson(params, p, &bad)) return log(1, "bad didOpen notification: " + bad);
        Document d{p.uri, uriToPath(p.uri), p.text, p.version};
        if (d.path.empty()) return log(2, "tsocheck only checks local file: URIs (file:///path), not " + d.uri);
        docs_.open(d);
        sched_.schedule(d.uri, 0, true);
        recheckDependents(d.uri, d.path, 0);
      } else if (method == "textDocument/didChange") {
        DidChangeParams p;
        if (!fromJson(params, p, &bad)) return log(1, "bad didChange notification: " + bad);
        std::string err;
        if (!docs_.change(p.uri, p.version, p.contentChanges, &err)) return log(1, "didChange ignored: " + err);
        sched_.cancel(p.uri, "an edit");
        {
          std::lock_guard<std::mutex> l(mu_);
          recheckReasons_.erase(p.uri);  // its own edit: checked for that
          focusOnEdit(p.uri, p.contentChanges);
        }
        if (!settings().checkOnSave) {
          sched_.schedule(p.uri, settings().debounceMs, true);
          if (std::optional<std::string> path = docs_.path(p.uri)) recheckDependents(p.uri, *path, settings().debounceMs);
        }
      } else if (method == "textDocument/didSave") {
        DidSaveParams p;
        if (!fromJson(params, p, &bad)) return log(1, "bad didSave notification: " + bad);
        if (p.text && docs_.get(p.uri)) {
          json whole = json::array({{{"text", *p.text}}});
          std::string err;
          docs_.change(p.uri, docs_.get(p.uri)->version, whole, &err);
        }
        if (settings().checkOnSave) {
          sched_.schedule(p.uri, 0, true);
          if (std::optional<std::string> path = docs_.path(p.uri)) recheckDependents(p.uri, *path, 0);
        }
      } else if (method == "textDocument/didClose") {
        DocumentParams p;
        if (!fromJson(params, p, &bad)) return log(1, "bad didClose notification: " + bad);
        const std::string& uri = p.uri;
        sched_.cancel(uri, "closing the file");
        sched_.forget(uri);
        docs_.close(uri);
        {
          std::lock_guard<std::mutex> l(mu_);
          results_.erase(uri);
          recheckReasons_.erase(uri);
          focus_.erase(uri);
          lowered_.erase(uri);
        }
        answerChecks(uri, true);  // closed: nothing will lower it
        unpublish(uri);
        notifyStatus(uri, false, 0, json::array(), {"unchecked", "not checked (closed)"});  // nothing runs for it any more
      } else if (method == "workspace/didChangeConfiguration") {
        ConfigurationParams p;
        if (!fromJson(params, p, &bad)) return log(1, "bad didChangeConfiguration notification: " + bad);
        configure(p.settings);
        {
          std::lock_guard<std::mutex> l(mu_);
          recheckReasons_.clear();  // checked again for the new settings
          for (auto& [uri, res] : results_) res.modelLines.clear();  // compared under the old settings
        }
        for (const std::string& uri : docs_.uris()) {
          sched_.cancel(uri, "new settings");
          sched_.schedule(uri, 0);
        }
      } else if (method == "window/workDoneProgress/cancel") {
        if (!params.is_object() || !params.contains("token")) return log(1, "bad window/workDoneProgress/cancel notification");
        const std::string token = params["token"].is_string() ? params["token"].get<std::string>() : dumpJson(params["token"]);
        std::lock_guard<std::mutex> l(mu_);
        auto it = progressCancels_.find(token);
        if (it != progressCancels_.end()) {
          it->second.second->store(true);
          it->second.first->store(true);
        }
      } else if (method == "$/cancelRequest") {
        CancelParams p;
        if (!fromJson(params, p, &bad)) return log(1, "bad $/cancelRequest notification: " + bad);
        const std::string key = dumpJson(p.id);
        if (withdrawChecks(key)) return replyError(p.id, {kRequestCancelled, "cancelled"});
        if (sched_.withdraw(key)) {  // still waiting for a worker: answered now
          {
            std::lock_guard<std::mutex> l(mu_);
            commandCancels_.erase(key);
          }
          return replyError(p.id, {kRequestCancelled, "cancelled"});
        }
        std::lock_guard<std::mutex> l(mu_);
        auto it = commandCancels_.find(key);
        if (it != commandCancels_.end()) it->second->store(true);
      }
      // initialized, $/setTrace and other notifications need nothing.
    } catch (const json::exception& e) {
      log(1, "bad " + method + " notification: " + e.what());
    } catch (const std::exception& e) {  // nothing may escape the I/O thread either
      log(1, method + " failed: " + e.what());
    }
  }

  void onResponse(const json& m) {
    std::function<void(const json&)> cb;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = pending_.find(dumpJson(m["id"]));
      if (it == pending_.end()) return;
      cb = std::move(it->second);
      pending_.erase(it);
    }
    cb(m);
  }

  void reply(const json& id, const json& result) { out_.send({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}); }
  void replyError(const json& id, const RpcError& e) {
    out_.send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", e.code}, {"message", e.message}}}});
  }
  void notify(const std::string& method, const json& params) {
    out_.send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }
  void request(const std::string& method, const json& params, std::function<void(const json&)> cb) {
    int64_t id;
    {
      std::lock_guard<std::mutex> l(mu_);
      id = nextId_++;
      pending_["\"tsocheck-" + std::to_string(id) + "\""] = std::move(cb);
    }
    out_.send({{"jsonrpc", "2.0"}, {"id", "tsocheck-" + std::to_string(id)}, {"method", method}, {"params", params}});
  }
  // Every other open document whose program was linked with `path` (its
  // results list it among their units) is checked again after `delayMs`,
  // and its lens says why. The cache key is the lowered program reachable
  // from each check, so a check the edit does not reach is not re-run.
  void recheckDependents(const std::string& uri, const std::string& path, int delayMs) {
    std::vector<std::string> dependents;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [other, res] : results_) {
        if (other == uri) continue;
        for (const std::string& unit : res.units)
          if (sameFile(unit, path)) {
            dependents.push_back(other);
            recheckReasons_[other] = "re-checked: " + std::filesystem::path(path).filename().string() + " changed";
            res.modelLines.clear();  // compared with the old text of that file
            break;
          }
      }
    }
    for (const std::string& d : dependents) {
      if (!docs_.isOpen(d)) continue;
      sched_.cancel(d, "an edit of a file its program includes");
      sched_.schedule(d, delayMs);
      log(4, "re-checking " + uriToPath(d) + ": " + path + " changed");
    }
  }

  // The line of uri the user is at: where the edit `changes` begins (mu_ held).
  void focusOnEdit(const std::string& uri, const json& changes) {
    for (const json& c : changes)
      if (c.is_object() && c.contains("range")) {
        const json& line = c["range"].value("start", json::object()).value("line", json());
        if (line.is_number_unsigned()) focus_[uri] = line.get<uint32_t>() + 1;
        return;
      }
  }

  // type: 1 error, 2 warning, 3 info, 4 log
  void log(int type, const std::string& message) { notify("window/logMessage", {{"type", type}, {"message", message}}); }

  void stop() {
    out_.close();
    io_.stop();
  }

  // ---- settings -----------------------------------------------------------
  Settings settings() {
    std::lock_guard<std::mutex> l(mu_);
    return settings_;
  }

  void configure(const json& j) {
    std::vector<std::string> bad;
    int workers;
    {
      std::lock_guard<std::mutex> l(mu_);
      bad = applySettings(settings_, j);
      workers = settings_.maxWorkers;
    }
    sched_.setWorkers(workers);
    for (const std::string& b : bad) {
      notify("window/showMessage", {{"type", 2}, {"message", "tsocheck settings: " + b}});
      log(2, "settings: " + b);
    }
  }

  json initialize(const InitializeParams& p) {
    if (initialized_) throw RpcError{kInvalidRequest, "initialize was already called"};
    // A failed initialize leaves the server uninitialized (a later valid one works).
    clientProgress_ = p.workDoneProgress;
    clientLensRefresh_ = p.codeLensRefresh;
    clientDocumentChanges_ = p.documentChanges;
    clientDisabledActions_ = p.disabledActions;
    cache_.setDir(cacheDirFor(p.rootPath));  // outside the workspace
    root_ = p.rootPath;
    configure(p.initializationOptions);
    initialized_ = true;
    json commands =
        json::array({"tsocheck.recheck", "tsocheck.showTrace", "tsocheck.runWithModel", "tsocheck.checkWorkspace"});
    return {{"capabilities",
             {{"positionEncoding", "utf-16"},
              {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
              {"codeLensProvider", {{"resolveProvider", false}}},
              {"hoverProvider", true},
              {"executeCommandProvider", {{"commands", commands}}}}},
            {"serverInfo", {{"name", "tsocheck"}, {"version", version_}}}};
  }

  // ---- checking ---------------------------------------------------------------
  // The scheduler's check of a document (on a worker thread).
  void checkDocument(const std::string& uri, const Running& r) {
    std::optional<Document> doc = docs_.get(uri);
    if (!doc) return;  // closed meanwhile
    Settings s;
    bool fresh;
    std::optional<uint32_t> focus;
    {
      std::lock_guard<std::mutex> l(mu_);
      s = settings_;
      fresh = noCache_.erase(uri) > 0;
      auto it = focus_.find(uri);
      if (it != focus_.end()) focus = it->second;
    }
    // Nothing may escape a worker thread: a failure becomes an error diagnostic.
    try {
      CheckRun run{*doc, r, outcomeSettings(s), fresh};
      runJob(run, s, focus);
    } catch (const std::exception& e) {
      failJob(*doc, e.what());
    } catch (...) {
      failJob(*doc, "unknown exception");
    }
    // A run replaced before its lowering leaves tsocheck/checks to the next one.
    answerChecks(uri, !r.cancel->load());
  }

  // One check of a document on a worker: what its hooks share.
  struct CheckRun {
    const Document& doc;
    const Running& r;
    std::string settingsKey;
    bool fresh;  // the cache is not read (a re-check was asked for)
    Clock::time_point t0 = Clock::now();
    std::map<std::string, std::string> keys;    // function -> cache key
    std::map<std::string, CheckReport> reused;  // function -> the cache's report
    std::vector<CheckReport> done;              // this run's finished checks, in the order they ran
    // Work done progress: token created after 200 ms, reports at most every 250 ms.
    std::string token;
    std::shared_ptr<std::atomic<bool>> tokenOk = std::make_shared<std::atomic<bool>>(false);
    bool created = false, begun = false;
    Clock::time_point lastReport = t0, lastStatus = t0;
    std::optional<Clock::time_point> lastPublish;  // of results before the run's end
  };

  // A run of the document's text (other open files' unsaved text too: the
  // program's other translation units and headers as the editor shows them),
  // stopped by the run's cancel flag, each check first looked up in the cache.
  RunOptions documentRun(CheckRun& run, const RunOptions& base) {
    RunOptions opts = base;
    opts.contents = run.doc.text;
    for (const std::string& other : docs_.uris())
      if (other != run.doc.uri)
        if (std::optional<Document> o = docs_.get(other)) opts.otherContents[o->path] = o->text;
    opts.cancel = run.r.cancel.get();
    opts.reuse = [this, &run](const CheckReport& rep, const Program& prog) { return reuseCached(run, rep, prog); };
    return opts;
  }

  void runJob(CheckRun& run, const Settings& s, std::optional<uint32_t> focus) {
    const Document& doc = run.doc;
    run.token = "tsocheck-check-" + std::to_string(++progressTokens_);
    RunOptions opts = documentRun(run, s.run);
    opts.firstCheckAt = focus;  // the check the user is at runs first
    opts.onProgress = [&](uint64_t n) { reportProgress(run, n); };
    // The answer first: a check's verdict is published as soon as it is
    // known (before its fence synthesis), and finished checks as they end;
    // fence hints and code actions follow when synthesis ends.
    opts.onVerdict = [&](const CheckReport& c) { publishEarly(run, &c); };
    opts.onCheckDone = [&](const CheckReport& c, size_t left) {
      run.done.push_back(c.reused && run.reused.count(c.function) ? run.reused[c.function] : c);
      // A check that ran (the first is the one the user is at: the reused ones
      // came before it) at once, later ones at most every 250 ms; the last
      // one with the run's end.
      const bool ran = !c.reused && c.result.executions > 0;
      if (ran && left > 0 && (!run.lastPublish || msSince(*run.lastPublish) >= 250)) publishEarly(run, nullptr);
    };
    opts.onFenceRound = [&](const CheckReport& c, const FenceRound& fr) { reportFenceRound(run, c, fr); };
    opts.onLowered = [&](const std::vector<CheckSite>& sites) {
      {
        std::lock_guard<std::mutex> l(mu_);
        lowered_[doc.uri] = Lowered{doc.path, doc.text, sites};
      }
      answerChecks(doc.uri, false);
    };
    notifyChecking(doc.uri, 0);
    FileReport fr;
    try {
      fr = runFile(doc.path, opts);
    } catch (const std::exception& e) {
      fr.inputError = true;
      fr.inputMessage = std::string("internal error: ") + e.what();
    }
    if (run.begun) notify("$/progress", {{"token", run.token}, {"value", {{"kind", "end"}}}});
    if (run.r.cancel->load()) return logReplaced(doc);
    if (!current(run)) return;  // a newer check follows
    publishFinal(run, fr, s);
    if (!s.compareModels.empty()) compareUnderModels(run, fr, s);
  }

  // tsocheck.compareModels, "where does it break?": after the document's
  // results are published, on the same worker and stopped by the same cancel
  // flag, each check again under every compared model but its own (its own
  // verdict is the one just published). Verdicts only: no fence synthesis,
  // so these runs have a cache key of their own, and nothing of them is
  // published as diagnostics. The line of each check goes with the results
  // of this very text, and tsocheck/status and the lenses are refreshed.
  void compareUnderModels(CheckRun& run, const FileReport& fr, const Settings& s) {
    const Document& doc = run.doc;
    const Clock::time_point t0 = Clock::now();
    std::vector<CheckReport> own;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = results_.find(doc.uri);
      if (it == results_.end() || it->second.version != doc.version) return;
      own = it->second.checks;
    }
    if (own.empty()) return;
    Settings verdicts = s;
    verdicts.options.fences = false;
    verdicts.run = Settings::runOptions(verdicts.options);
    const std::string settingsKey = outcomeSettings(verdicts);
    std::map<Model, std::map<std::string, CheckReport>> under;  // model -> function -> report
    int checked = 0, cachedN = 0;
    for (Model m : s.compareModels) {
      if (std::all_of(own.begin(), own.end(), [&](const CheckReport& c) { return c.model == m; })) continue;
      if (!current(run)) return;
      CheckRun forced{doc, run.r, settingsKey, run.fresh};
      RunOptions opts = documentRun(forced, verdicts.run);
      opts.forceModel = m;  // as the "run under M" lens: it wins over the annotation
      FileReport other = runFile(doc.path, opts);
      if (run.r.cancel->load()) return logReplaced(doc);
      if (!current(run)) return;
      for (CheckReport& c : collect(doc, other, verdicts, forced.reused, forced.keys, &checked, &cachedN).checks)
        under[m].emplace(c.function, std::move(c));
    }
    // Per check, its reports in the line's order (its own model where the
    // list has it, else before the first listed model weaker than it), one
    // report per model: compareModels makes the rows.
    std::vector<FileReport> reports;
    for (const CheckReport& c : own)
      for (Model m : lineModels(s.compareModels, c.model)) {
        FileReport one;
        if (m == c.model) one.checks.push_back(c);
        else if (auto it = under[m].find(c.function); it != under[m].end()) one.checks.push_back(it->second);
        else {  // no report of this check under m (the file did not compile so): no verdict
          CheckReport missing = c;
          missing.model = m;
          missing.result.status = Status::Error;
          one.checks.push_back(std::move(missing));
        }
        reports.push_back(std::move(one));
      }
    std::map<std::string, std::string> lines;
    for (const ModelVerdicts& row : compareModels(reports)) lines[row.function] = modelVerdictsText(row);
    if (!current(run)) return;
    Results res;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = results_.find(doc.uri);
      if (it == results_.end() || it->second.version != doc.version || it->second.text != doc.text) return;
      it->second.modelLines = lines;
      res = it->second;
    }
    notifyChecked(doc.uri, res, fileStatus(fr, res.checks));
    if (clientLensRefresh_) request("workspace/codeLens/refresh", nullptr, [](const json&) {});
    log(4, "compared " + doc.path + " v" + std::to_string(doc.version) + " under each model: " + std::to_string(checked) +
               " checked, " + std::to_string(cachedN) + " from cache, " + std::to_string(int(msSince(t0))) + " ms");
  }

  // The models of a check's line: the compared ones in their order, with the
  // check's own model where the list has it, else before the first listed
  // model that comes after it in kModels (SC, TSO, PSO, RC11).
  static std::vector<Model> lineModels(const std::vector<Model>& listed, Model own) {
    std::vector<Model> out = listed;
    if (std::find(out.begin(), out.end(), own) != out.end()) return out;
    auto rank = [](Model m) { return std::find(std::begin(kModels), std::end(kModels), m) - std::begin(kModels); };
    auto at = std::find_if(out.begin(), out.end(), [&](Model m) { return rank(m) > rank(own); });
    out.insert(at, own);
    return out;
  }

  // Whether what the run checks is still the document's text (and the run
  // was not cancelled): only then are its results shown. The staleness rule
  // is DocumentStore::unchanged's, for a run as for stored results.
  bool current(const CheckRun& run) {
    if (run.r.cancel->load()) return false;
    return docs_.unchanged(run.doc.uri, run.doc.version, run.doc.text);
  }

  // tsocheck/status every 250 ms, and the work done progress.
  void reportProgress(CheckRun& run, uint64_t n) {
    run.r.executions->store((long long)n);
    if (msSince(run.lastStatus) >= 250) {
      run.lastStatus = Clock::now();
      notifyChecking(run.doc.uri, (long long)n);
    }
    if (!clientProgress_ || msSince(run.t0) < 200) return;
    if (!run.created) {
      run.created = true;
      request("window/workDoneProgress/create", {{"token", run.token}}, [ok = run.tokenOk](const json& m) {
        if (!m.contains("error")) ok->store(true);
      });
    }
    if (!run.tokenOk->load()) return;
    if (!run.begun) {
      run.begun = true;
      notify("$/progress", {{"token", run.token}, {"value", {{"kind", "begin"}, {"title", "tsocheck"},
                                                             {"message", "checking " + run.doc.path}, {"percentage", 0}}}});
    }
    if (msSince(run.lastReport) >= 250) {
      run.lastReport = Clock::now();
      notify("$/progress", {{"token", run.token}, {"value", {{"kind", "report"}, {"message", std::to_string(n) + " executions"}}}});
    }
  }

  // A check's cache key; true (skip the check) when the cache has its report.
  bool reuseCached(CheckRun& run, const CheckReport& rep, const Program& prog) {
    std::string k = checkKey(rep, prog, run.settingsKey, version_);
    run.keys[rep.function] = k;
    if (run.fresh) return false;
    auto j = cache_.get(k);
    if (!j) return false;
    run.reused[rep.function] = checkFromJson(*j);
    return true;
  }

  // Fence synthesis rounds: in the log, and in the work done progress once it began.
  void reportFenceRound(CheckRun& run, const CheckReport& c, const FenceRound& fr) {
    const std::string text = "`" + c.function + "`: " + fenceRoundText(fr);
    log(4, text + " (" + run.doc.path + ")");
    if (run.begun && run.tokenOk->load())
      notify("$/progress", {{"token", run.token}, {"value", {{"kind", "report"}, {"message", text}}}});
  }

  // The run's finished checks (and `verdict`, a check whose fences are still
  // being synthesized) published before the run ends; checks not reached yet
  // keep what they showed for this very text under these settings.
  void publishEarly(CheckRun& run, const CheckReport* verdict) {
    if (!current(run)) return;
    const Document& doc = run.doc;
    run.lastPublish = Clock::now();
    Results early;
    early.version = doc.version;
    early.settingsKey = run.settingsKey;
    early.text = doc.text;
    early.checks = run.done;
    if (verdict) early.checks.push_back(*verdict);
    early.fenceFiles = fenceFilesOf(doc.path, early.checks);
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = results_.find(doc.uri);
      if (it != results_.end() && it->second.version == doc.version && it->second.settingsKey == run.settingsKey) {
        early.fenceFiles.insert(it->second.fenceFiles.begin(), it->second.fenceFiles.end());
        for (const CheckReport& old : it->second.checks) {
          bool known = false;
          for (const CheckReport& k : early.checks) known = known || k.function == old.function;
          if (!known) early.checks.push_back(old);
        }
      }
      results_[doc.uri] = early;
    }
    publish(doc, early);
    if (verdict)
      log(4, "published the verdict of `" + verdict->function + "` (" + statusName(verdict->result.status) +
                 ") before fence synthesis: " + doc.path + ", version " + std::to_string(doc.version));
  }

  // The run's results: into the cache and the document's results, published,
  // the status and lenses updated.
  void publishFinal(CheckRun& run, FileReport& fr, const Settings& s) {
    const Document& doc = run.doc;
    int checked = 0, cachedN = 0;
    Results res = collect(doc, fr, s, run.reused, run.keys, &checked, &cachedN);
    res.settingsKey = run.settingsKey;
    res.units = fr.units;
    if (fr.inputError && !fr.checks.empty()) fr.inputError = false;
    if (fr.inputError && fr.inputMessage.find("no check function") == std::string::npos)
      res.inputDiagnostics = compileDiagnostics(doc, fr);
    {
      std::lock_guard<std::mutex> l(mu_);
      results_[doc.uri] = res;
    }
    sched_.done(doc.uri, run.r);  // lenses show the result from now on
    publish(doc, res);
    notifyChecked(doc.uri, res, fileStatus(fr, res.checks));
    // Lenses show the new status: ask clients that support it to re-request them.
    if (clientLensRefresh_) request("workspace/codeLens/refresh", nullptr, [](const json&) {});
    log(4, "checked " + doc.path + " v" + std::to_string(doc.version) + ": " + std::to_string(checked) +
               " checked, " + std::to_string(cachedN) + " from cache, " + std::to_string(int(msSince(run.t0))) + " ms");
  }

  // A cancelled check: what replaced it and how long it took to stop.
  void logReplaced(const Document& doc) {
    Clock::time_point at = Clock::now();
    std::string why = "a newer request";
    if (std::optional<Running> now = sched_.running(doc.uri)) {
      at = now->cancelledAt;
      if (*now->cancelledBy) why = now->cancelledBy;
    }
    log(4, "check of " + doc.path + " v" + std::to_string(doc.version) + " replaced by " + why + " (stopped " +
               std::to_string(int(msSince(at))) + " ms later)");
  }

  // This run's checks as the document's results: the fresh ones (a timeout
  // names the setting to raise) go into the cache, reused ones are as the
  // cache had them.
  Results collect(const Document& doc, const FileReport& fr, const Settings& s,
                  std::map<std::string, CheckReport>& reused, std::map<std::string, std::string>& keys, int* checked,
                  int* cachedN) {
    Results res;
    res.version = doc.version;
    res.text = doc.text;
    for (const CheckReport& c : fr.checks) {
      if (c.reused) {
        res.checks.push_back(reused[c.function]);
        ++*cachedN;
        continue;
      }
      res.checks.push_back(c);
      if (c.result.status == Status::Timeout && s.run.timeLimit) {
        char limit[64];
        std::snprintf(limit, sizeof limit, " (raise tsocheck.timeLimit, now %g s)", *s.run.timeLimit);
        res.checks.back().result.message += limit;
      }
      ++*checked;
      if (c.result.status != Status::Timeout && keys.count(c.function)) cache_.put(keys[c.function], checkJson(c));
    }
    res.fenceFiles = fenceFilesOf(doc.path, res.checks);
    return res;
  }

  // tsocheck/status at the end of a check: each check's verdict, the executions in total.
  void notifyChecked(const std::string& uri, const Results& res, const FileStatus& file) {
    json summary = json::array();
    long long total = 0;
    for (const CheckReport& c : res.checks) {
      const long long executions = (long long)c.result.executions;
      total += executions;
      summary.push_back({{"function", c.function}, {"status", statusName(c.result.status)},
                         {"executions", executions}, {"model", modelName(c.model)}, {"message", c.result.message}});
      if (auto line = res.modelLines.find(c.function); line != res.modelLines.end()) summary.back()["models"] = line->second;
    }
    notifyStatus(uri, false, total, summary, file);
  }

  // A file that cannot be checked: the compiler's errors (and warnings) in
  // this document as Errors (Warnings) at their own ranges, the way clangd
  // shows them; an error elsewhere (a header) or without a location gives one
  // Error at the top naming where it is.
  static json compileDiagnostics(const Document& doc, const FileReport& fr) {
    json out = json::array();
    const frontend::Diagnostic* elsewhere = nullptr;
    for (const auto& d : fr.diagnostics) {
      if (d.severity != "error" && d.severity != "warning") continue;
      if (d.line > 0 && sameFile(d.file, doc.path))
        out.push_back({{"range", lineRange(doc.text, d.line, d.column)}, {"severity", d.severity == "error" ? 1 : 2},
                       {"source", "tsocheck"}, {"code", "compile-" + d.severity}, {"message", d.message}});
      else if (d.severity == "error" && !elsewhere)
        elsewhere = &d;
    }
    bool anyError = false;
    for (const json& d : out) anyError = anyError || d["severity"] == 1;
    if (!anyError) {
      std::string msg = "this file cannot be checked";
      if (elsewhere)
        msg += ": " + elsewhere->message +
               (elsewhere->line ? " (" + std::filesystem::path(elsewhere->file).filename().string() + ":" +
                                      std::to_string(elsewhere->line) + ")"
                                : std::string());
      else {
        const std::string& m = fr.inputMessage;
        auto colon = m.find(": ");  // the runner's message starts with the path
        msg += ": " + (colon == std::string::npos ? m : m.substr(colon + 2));
      }
      json at = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}};
      out.push_back({{"range", at}, {"severity", 1}, {"source", "tsocheck"}, {"code", "input"}, {"message", msg}});
    }
    return out;
  }

  void failJob(const Document& doc, const std::string& what) {
    try {
      const std::string msg = "tsocheck failed on this file (internal error: " + what + ")";
      log(1, msg + ": " + doc.path);
      json at = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}};
      notify("textDocument/publishDiagnostics",
             {{"uri", doc.uri}, {"version", doc.version},
              {"diagnostics", json::array({{{"range", at}, {"severity", 1}, {"source", "tsocheck"},
                                            {"code", "internal-error"}, {"message", msg}}})}});
      notifyStatus(doc.uri, false, 0, json::array(), {"unchecked", "not checked: tsocheck failed on this file (internal error)"});
    } catch (...) {
    }
  }

  // tsocheck/status: a document's checks started (checking, executions 0),
  // are running (executions so far, every 250 ms) or ended (checks summary).
  // Lets clients show a status bar without parsing $/progress.
  // "file" is the file's state, worded once by the service (fileStatus):
  // clients show it as it is.
  void notifyStatus(const std::string& uri, bool checking, long long executions, const json& checks,
                    const FileStatus& file) {
    notify("tsocheck/status", {{"uri", uri}, {"checking", checking}, {"executions", executions}, {"checks", checks},
                               {"file", fileStatusJson(file)}});
  }
  void notifyChecking(const std::string& uri, long long executions) {
    notifyStatus(uri, true, executions, json::array(), checkingStatus(uint64_t(executions)));
  }

  static json ownDiagnostics(const Document& doc, const Results& res) {
    json diags = res.inputDiagnostics;
    for (const CheckReport& c : res.checks)
      for (json& d : checkDiagnostics(c, doc.path, doc.text)) diags.push_back(std::move(d));
    return diags;
  }

  // The hints other documents' checks put in `uri` (with mu_ held).
  void appendLinkedHints(const std::string& uri, json& diags) {
    for (const auto& [source, targets] : linkedHints_) {
      if (source == uri) continue;
      auto it = targets.find(uri);
      if (it != targets.end())
        for (const json& d : it->second) diags.push_back(d);
    }
  }

  // A document's diagnostics are its own checks' plus the hints the checks
  // of other documents put in it (a library linked with a harness: at the
  // stale read and the buffered store, the harness's trace attached). The
  // files this document's checks put hints in, open or not, are published
  // again when those hints change; a verified re-check clears them.
  // (versioned: doc is open; a workspace check's file that is not open has no version.)
  void publish(const Document& doc, const Results& res, bool versioned = true) {
    std::map<std::string, json> hints;  // file URI -> this document's hints there
    for (const CheckReport& c : res.checks)
      for (const std::string& f : linkedHintFiles(c, doc.path)) {
        std::string text;
        if (std::optional<Document> o = docs_.get(pathToUri(f))) text = o->text;
        else if (std::optional<std::string> t = readSourceFile(f)) text = std::move(*t);
        json& h = hints[pathToUri(f)];
        if (h.is_null()) h = json::array();
        for (json& d : linkedFileHints(c, doc.path, f, text)) h.push_back(std::move(d));
      }
    std::lock_guard<std::mutex> p(publishMu_);
    json diags = ownDiagnostics(doc, res);
    std::vector<std::string> changed;
    {
      std::lock_guard<std::mutex> l(mu_);
      appendLinkedHints(doc.uri, diags);
      std::map<std::string, json>& mine = linkedHints_[doc.uri];
      for (const auto& [t, h] : mine)
        if (!hints.count(t)) changed.push_back(t);
      for (const auto& [t, h] : hints)
        if (!mine.count(t) || mine[t] != h) changed.push_back(t);
      mine = std::move(hints);
      if (mine.empty()) linkedHints_.erase(doc.uri);
    }
    json params = {{"uri", doc.uri}, {"diagnostics", diags}};
    if (versioned) params["version"] = doc.version;
    notify("textDocument/publishDiagnostics", params);
    for (const std::string& t : changed)
      if (t != doc.uri) publishLinked(t);
  }

  // Publishes `uri` again after the hints other documents put in it changed:
  // its own results (when it is open and checked) plus those hints.
  void publishLinked(const std::string& uri) {
    json diags = json::array();
    std::optional<Document> d = docs_.get(uri);
    std::optional<Results> own;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = results_.find(uri);
      if (d && it != results_.end()) own = it->second;
      appendLinkedHints(uri, diags);
    }
    json params = {{"uri", uri}};
    if (own) {
      json mine = ownDiagnostics(Document{uri, d->path, own->text, own->version}, *own);
      mine.insert(mine.end(), diags.begin(), diags.end());
      diags = std::move(mine);
      params["version"] = own->version;
    }
    params["diagnostics"] = diags;
    notify("textDocument/publishDiagnostics", params);
  }

  // A closed document: its own diagnostics go, the hints it put in other
  // files go, the hints others put in it stay.
  void unpublish(const std::string& uri) {
    std::lock_guard<std::mutex> p(publishMu_);
    std::vector<std::string> targets;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = linkedHints_.find(uri);
      if (it != linkedHints_.end()) {
        for (const auto& [t, h] : it->second) targets.push_back(t);
        linkedHints_.erase(it);
      }
    }
    publishLinked(uri);
    for (const std::string& t : targets)
      if (t != uri) publishLinked(t);
  }

  // ---- requests on results ---------------------------------------------------
  Document openDoc(const std::string& uri) {
    std::optional<Document> d = docs_.get(uri);
    if (!d) throw RpcError{kInvalidParams, "document is not open"};
    return *d;
  }

  // Typed params of a request, or InvalidParams.
  template <class T>
  static T read(const json& params) {
    T out;
    std::string why;
    if (!fromJson(params, out, &why)) throw RpcError{kInvalidParams, "invalid params: " + why};
    return out;
  }

  std::vector<CheckReport> resultsOf(const std::string& uri) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = results_.find(uri);
    return it == results_.end() ? std::vector<CheckReport>() : it->second.checks;
  }

  // The compared models' lines of the open document d, only while d is the
  // text they were computed for (never a line of an older text).
  std::map<std::string, std::string> modelLinesOf(const Document& d) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = results_.find(d.uri);
    if (it == results_.end() || it->second.version != d.version || it->second.text != d.text) return {};
    return it->second.modelLines;
  }

  // Fence quick fixes, computed only against the texts the check saw: none
  // while the document is newer than its results (it is being re-checked),
  // and none in a header whose open buffer no longer holds the text the
  // check read. No file is read here (the I/O thread).
  json codeActions(const CodeActionParams& p) {
    Document d = openDoc(p.uri);
    json out = json::array();
    Results res;
    {
      std::lock_guard<std::mutex> l(mu_);
      focus_[d.uri] = p.range.start.line + 1;  // clients ask at the cursor
      auto it = results_.find(d.uri);
      if (it == results_.end()) return out;
      res = it->second;
    }
    if (!docs_.unchanged(d.uri, res.version, res.text)) {
      // A client that shows disabled actions learns why the fix is not there yet.
      bool fences = false;
      for (const CheckReport& c : res.checks) fences = fences || !c.fences.empty();
      if (fences && clientDisabledActions_)
        out.push_back({{"title", "Insert fences (after the re-check of this edit)"}, {"kind", "quickfix"},
                       {"disabled", {{"reason", "tsocheck is re-checking the edited file; its fence fixes follow"}}}});
      return out;
    }
    TextOf textOf = [&](const std::string& file) -> std::optional<EditText> {
      auto it = res.fenceFiles.find(file);
      if (it == res.fenceFiles.end()) return std::nullopt;
      if (std::optional<Document> o = docs_.get(pathToUri(file))) {
        if (o->text != it->second) return std::nullopt;  // edited since the check
        return EditText(o->text, o->version);
      }
      return EditText(it->second);  // the file on disk: no version
    };
    const EditFormat format{clientDocumentChanges_, d.version};
    for (const CheckReport& c : res.checks)
      for (json& a : fenceActions(c, d.uri, d.text, p.rangeJson, textOf, format)) out.push_back(std::move(a));
    return out;
  }

  json codeLenses(const DocumentParams& p) {
    Document d = openDoc(p.uri);
    long long checking = -1;
    if (std::optional<Running> r = sched_.running(d.uri); r && !r->published->load()) checking = r->executions->load();
    json out = json::array();
    const std::map<std::string, std::string> lines = modelLinesOf(d);
    for (const CheckReport& c : resultsOf(d.uri)) {
      auto line = lines.find(c.function);
      for (json& lens : checkLenses(c, d.uri, d.text, checking, line == lines.end() ? "" : line->second))
        out.push_back(std::move(lens));
    }
    std::string reason;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = recheckReasons_.find(d.uri);
      if (it != recheckReasons_.end()) reason = it->second;
    }
    // Why the document was checked again though it was not edited: beside its first check's lens.
    if (!reason.empty() && !out.empty())
      out.push_back({{"range", out[0]["range"]},
                     {"command", {{"title", reason}, {"command", "tsocheck.recheck"}, {"arguments", json::array({d.uri})}}}});
    return out;
  }

  // ---- tsocheck/checks ------------------------------------------------------
  // {checks: [{name, range, model}]} from the document's latest lowering; with
  // none yet, the request waits for the running or queued check's lowering
  // ($/cancelRequest ends the wait).
  void checks(const json& id, const std::string& uri) {
    openDoc(uri);
    {
      std::lock_guard<std::mutex> l(mu_);
      checksWaiting_[uri].push_back(id);
    }
    answerChecks(uri, false);  // at once when lowered (else when the lowering comes)
  }

  static json checksJson(const Lowered* low) {
    json list = json::array();
    if (low)
      for (const CheckSite& c : low->sites)
        if (sameFile(c.file, low->path))
          list.push_back({{"name", c.function},
                          {"range", lineRange(low->text, c.line, c.column)},
                          {"model", modelName(c.model)}});
    return {{"checks", list}};
  }

  // Answers the requests waiting for uri's check functions: from its
  // lowering, or (`anyway`: none will come) with no checks.
  void answerChecks(const std::string& uri, bool anyway) {
    std::vector<json> ids;
    json result;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto low = lowered_.find(uri);
      if (low == lowered_.end() && !anyway) return;
      auto w = checksWaiting_.find(uri);
      if (w == checksWaiting_.end()) return;
      ids = std::move(w->second);
      checksWaiting_.erase(w);
      result = checksJson(low == lowered_.end() ? nullptr : &low->second);
    }
    for (const json& id : ids) reply(id, result);
  }

  // Drops a waiting tsocheck/checks request: true when it was waiting.
  bool withdrawChecks(const std::string& key) {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [uri, ids] : checksWaiting_)
      for (auto it = ids.begin(); it != ids.end(); ++it)
        if (dumpJson(*it) == key) {
          ids.erase(it);
          return true;
        }
    return false;
  }

  json hover(const HoverParams& p) {
    Document d = openDoc(p.uri);
    {
      std::lock_guard<std::mutex> l(mu_);
      focus_[d.uri] = p.position.line + 1;
    }
    std::string md;
    const std::map<std::string, std::string> lines = modelLinesOf(d);
    for (const CheckReport& c : resultsOf(d.uri)) {
      auto line = lines.find(c.function);
      md += traceHover(c, d.path, p.position.line + 1, line == lines.end() ? "" : line->second);
    }
    if (md.empty()) return nullptr;
    return {{"contents", {{"kind", "markdown"}, {"value", md}}}};
  }

  json trace(const std::string& uri, const std::string& function) {
    for (const CheckReport& c : resultsOf(uri))
      if (c.function == function) return tracePayload(c);
    throw RpcError{kInvalidParams, "no result for function " + function};
  }

  // {html, text, steps} of a check's violation (null without one; steps: the
  // text's lines that show a step, see pictureText), drawn on the worker
  // pool: a long trace's page is never built on the I/O thread.
  void tracePicture(const json& id, const PictureParams& p) {
    for (CheckReport& c : resultsOf(p.uri))
      if (c.function == p.function) {
        sched_.submit([this, id, c = std::move(c)]() {
          try {
            const json payload = tracePayload(c);
            PictureText text = pictureText(payload);
            if (text.text.empty()) return reply(id, nullptr);
            reply(id, {{"html", picturePage({&c}, "tsocheck: " + c.function)},
                       {"text", std::move(text.text)},
                       {"steps", std::move(text.steps)}});
          } catch (const std::exception& e) {
            replyError(id, {kInternalError, std::string("internal error: ") + e.what()});
          }
        }, dumpJson(id));
        return;
      }
    throw RpcError{kInvalidParams, "no result for function " + p.function};
  }

  // Command arguments are positional: (uri), (uri, function), (uri, function, model).
  void executeCommand(const json& id, const ExecuteCommandParams& p) {
    const std::string& cmd = p.command;
    const json& args = p.arguments;
    if (cmd == "tsocheck.showTrace") return reply(id, trace(args.at(0), args.at(1)));
    if (cmd == "tsocheck.recheck") {
      std::string uri = args.at(0);
      if (!docs_.isOpen(uri)) throw RpcError{kInvalidParams, "document is not open"};
      {
        std::lock_guard<std::mutex> l(mu_);
        noCache_.insert(uri);
        recheckReasons_.erase(uri);  // re-checked on request, not for a linked file
        if (auto it = results_.find(uri); it != results_.end()) it->second.modelLines.clear();
      }
      sched_.cancel(uri, "a re-check");
      sched_.schedule(uri, 0, true);
      return reply(id, nullptr);
    }
    if (cmd == "tsocheck.runWithModel") {
      Document d = openDoc(args.at(0));
      const std::string fn = args.at(1);
      std::optional<Model> m = parseModel(args.at(2).get<std::string>());
      if (!m) throw RpcError{kInvalidParams, "model must be SC, TSO or PSO"};
      auto cancel = std::make_shared<std::atomic<bool>>(false);
      {
        std::lock_guard<std::mutex> l(mu_);
        commandCancels_[dumpJson(id)] = cancel;
      }
      RunOptions opts = settings().run;
      opts.forceModel = m;  // the lens names the model: it wins over the annotation
      opts.contents = d.text;
      // Answered from the worker pool so the server keeps serving (bounded by
      // maxWorkers, no thread per request); $/cancelRequest stops it.
      {
        sched_.submit([this, id, d, fn, opts, cancel]() mutable {
          try {
            opts.cancel = cancel.get();
            FileReport fr = runFile(d.path, opts);
            {
              std::lock_guard<std::mutex> l(mu_);
              commandCancels_.erase(dumpJson(id));
            }
            if (cancel->load()) return replyError(id, {kRequestCancelled, "cancelled"});
            for (const CheckReport& c : fr.checks)
              if (c.function == fn) {
                notify("window/showMessage",
                       {{"type", 3},
                        {"message", "`" + fn + "` under " + modelName(*opts.forceModel) + ": " +
                                        statusName(c.result.status) + " — " + c.result.message}});
                return reply(id, tracePayload(c));
              }
            replyError(id, {kInvalidParams, "no check function " + fn});
          } catch (const std::exception& e) {
            {
              std::lock_guard<std::mutex> l(mu_);
              commandCancels_.erase(dumpJson(id));
            }
            replyError(id, {kInternalError, std::string("internal error: ") + e.what()});
          }
        }, dumpJson(id));
      }
      return;
    }
    if (cmd == "tsocheck.checkWorkspace") return checkWorkspace(id);
    throw RpcError{kInvalidParams, "unknown command " + cmd};
  }

  // The workspace's compile database: in tsocheck.compileCommandsDir when
  // set, else at the workspace root or in its build/ directory ("" = none).
  std::string workspaceDatabase() {
    const std::string dir = settings().run.compileCommandsDir;
    std::vector<std::filesystem::path> candidates;
    if (!dir.empty()) candidates.push_back(std::filesystem::path(dir) / "compile_commands.json");
    else if (!root_.empty())
      for (const char* sub : {"", "build"}) candidates.push_back(std::filesystem::path(root_) / sub / "compile_commands.json");
    for (const auto& c : candidates) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(c, ec)) return c.lexically_normal().string();
    }
    return "";
  }

  // tsocheck.checkWorkspace: every C file of the workspace's compile
  // database (at most kMaxWorkspaceFiles, regular files only) is checked on
  // one worker, one after the other, each with the database's flags and the
  // open documents' unsaved text; a file with check functions (a harness)
  // gets its diagnostics (and its library files their hints), open or not.
  // Work done progress reports "3/12 files"; $/cancelRequest or cancelling
  // the progress stops it after the running check. The answer counts what
  // was found.
  void checkWorkspace(const json& id) {
    const std::string db = workspaceDatabase();
    if (db.empty())
      throw RpcError{kInvalidParams, "no compile_commands.json in " + (root_.empty() ? std::string("the workspace") : root_) +
                                         " or its build/ directory (set tsocheck.compileCommandsDir)"};
    size_t leftOut = 0;
    std::vector<DatabaseUnit> units = databaseUnits(db, "", kMaxWorkspaceFiles, &leftOut);
    auto cancel = std::make_shared<std::atomic<bool>>(false), byProgress = std::make_shared<std::atomic<bool>>(false);
    const std::string token = "tsocheck-workspace-" + std::to_string(++progressTokens_);
    {
      std::lock_guard<std::mutex> l(mu_);
      commandCancels_[dumpJson(id)] = cancel;
      progressCancels_[token] = {cancel, byProgress};
    }
    auto tokenState = std::make_shared<std::atomic<int>>(clientProgress_ ? 0 : 2);  // 0 asked, 1 created, 2 none
    if (clientProgress_)
      request("window/workDoneProgress/create", {{"token", token}}, [tokenState](const json& m) {
        tokenState->store(m.contains("error") ? 2 : 1);
      });
    RunOptions opts = settings().run;
    opts.compileCommandsDir = std::filesystem::path(db).parent_path().string();  // the database found, for every file
    sched_.submit([this, id, db, units, leftOut, cancel, byProgress, token, tokenState, opts]() mutable {
      auto progress = [&](const json& value) {
        if (tokenState->load() == 1) notify("$/progress", {{"token", token}, {"value", value}});
      };
      const size_t n = units.size();
      // The client's answer to the token's creation, for up to 2 s.
      for (int i = 0; i < 100 && tokenState->load() == 0 && !cancel->load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      progress({{"kind", "begin"}, {"title", "tsocheck: checking the workspace"}, {"cancellable", true},
                {"message", "0/" + std::to_string(n) + " files"}, {"percentage", 0}});
      size_t done = 0, harnesses = 0, violations = 0;
      std::vector<std::string> skipped;
      try {
        for (const DatabaseUnit& u : units) {
          if (cancel->load()) break;
          const std::string uri = pathToUri(u.file);
          std::optional<Document> open = docs_.get(uri);
          std::string why;
          std::optional<std::string> disk = open ? std::nullopt : readSourceFile(u.file, &why);
          if (!open && !disk) {
            skipped.push_back(u.file + " " + why);
          } else {
            RunOptions o = opts;
            o.cancel = cancel.get();
            o.contents = open ? open->text : *disk;
            for (const std::string& other : docs_.uris())
              if (other != uri)
                if (std::optional<Document> od = docs_.get(other)) o.otherContents[od->path] = od->text;
            FileReport fr = runFile(u.file, o);
            if (cancel->load()) break;
            const bool harness = !fr.checks.empty();
            if (harness) ++harnesses;
            for (const CheckReport& c : fr.checks) violations += c.result.status == Status::Violation;
            if (open) {  // an open document: its own check, as for an edit (from the cache now)
              sched_.schedule(uri, 0);
            } else if (harness || fr.inputMessage.find("no check function") == std::string::npos) {
              Document d{uri, u.file, *o.contents, 0};
              Results res;
              res.text = d.text;
              res.checks = fr.checks;
              if (fr.inputError && fr.checks.empty()) res.inputDiagnostics = compileDiagnostics(d, fr);
              publish(d, res, false);
            }
          }
          ++done;
          progress({{"kind", "report"}, {"message", std::to_string(done) + "/" + std::to_string(n) + " files"},
                    {"percentage", n ? done * 100 / n : 100}});
          log(4, "workspace: " + std::to_string(done) + "/" + std::to_string(n) + " files (" + u.file + ")");
        }
      } catch (const std::exception& e) {
        log(1, std::string("workspace check failed: ") + e.what());
      }
      const bool cancelled = cancel->load();
      progress({{"kind", "end"}, {"message", std::to_string(done) + "/" + std::to_string(n) + " files" +
                                                 (cancelled ? " (cancelled)" : "")}});
      {
        std::lock_guard<std::mutex> l(mu_);
        commandCancels_.erase(dumpJson(id));
        progressCancels_.erase(token);
      }
      // $/cancelRequest answers RequestCancelled; a cancelled progress answers what was done.
      if (cancelled && !byProgress->load())
        return replyError(id, {kRequestCancelled, "cancelled after " + std::to_string(done) + "/" + std::to_string(n) + " files"});
      reply(id, {{"database", db}, {"files", n}, {"checked", done}, {"harnesses", harnesses}, {"violations", violations},
                 {"leftOut", leftOut}, {"skipped", skipped}, {"cancelled", cancelled}});
    }, dumpJson(id));
  }

  asio::io_context& io_;
  Transport out_;
  std::string version_;
  bool initialized_ = false, shutdown_ = false, clientProgress_ = false, clientLensRefresh_ = false,
       clientDocumentChanges_ = false, clientDisabledActions_ = false;
  int exitCode_ = 1;
  DocumentStore docs_;
  ResultCache cache_;
  std::atomic<long long> progressTokens_{0};

  std::mutex mu_;  // the members below, up to the scheduler
  Settings settings_;
  std::set<std::string> noCache_;
  std::map<std::string, Results> results_;
  std::map<std::string, Lowered> lowered_;                // uri -> its latest lowering's check functions
  std::map<std::string, std::vector<json>> checksWaiting_;  // uri -> tsocheck/checks requests waiting for one
  std::map<std::string, std::string> recheckReasons_;  // uri -> "re-checked: queue.c changed"
  // The hints each document's checks put in other files: source URI -> file URI -> hints.
  std::map<std::string, std::map<std::string, json>> linkedHints_;
  std::mutex publishMu_;  // one publish at a time (taken before mu_): hints move between files
  std::map<std::string, uint32_t> focus_;  // uri -> the line (1-based) last edited, hovered or asked for fixes at
  std::map<std::string, std::function<void(const json&)>> pending_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> commandCancels_;
  // Work done progress the client may cancel (token -> the command's flag, and "cancelled by the progress").
  std::map<std::string, std::pair<std::shared_ptr<std::atomic<bool>>, std::shared_ptr<std::atomic<bool>>>>
      progressCancels_;
  std::string root_;  // the workspace root ("" = none)
  int64_t nextId_ = 1;
  // Last: destroyed first, so its workers stop before what they use.
  Scheduler sched_{io_, [this](const std::string& uri, const Running& r) { checkDocument(uri, r); }};
};

}  // namespace

int runServer(const std::string& version) {
  std::signal(SIGPIPE, SIG_IGN);
  keepSpareFrontendWorker(true);  // a lowering on each edit: the next worker waits, libraries loaded
  asio::io_context io;
  Server s(io, version);
  return s.run();
}

}  // namespace tsocheck::lsp
