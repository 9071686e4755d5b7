#include "service/trace_picture.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "service/report_reader.h"

namespace tsocheck {

using nlohmann::json;

namespace {

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
int64_t num(const json& j, const char* key, int64_t dflt = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : dflt;
}

const json& traceOf(const json& payload) {
  static const json none = json::array();
  auto v = payload.find("violation");
  if (v == payload.end() || !v->is_object()) return none;
  auto t = v->find("trace");
  return t != v->end() && t->is_array() ? *t : none;
}

bool isRead(const std::string& ev) { return ev == "load-memory" || ev == "load-buffer" || ev == "rmw"; }
// Steps whose value reaches memory (without store buffers a store does).
bool writesMemory(const std::string& ev, bool buffered) {
  return ev == "flush" || ev == "rmw" || (ev == "store" && !buffered);
}

// The buffer entries of thread t after trace step i-1 (none before the first).
const json& buffersBefore(const json& trace, size_t i, size_t t) {
  static const json none = json::array();
  if (i == 0) return none;
  auto b = trace[i - 1].find("buffers");
  if (b == trace[i - 1].end() || !b->is_array() || t >= b->size() || !(*b)[t].is_array()) return none;
  return (*b)[t];
}

// The store a flush at trace index i writes: the oldest entry of its thread's
// buffer for the address (0 when the buffers do not show it).
uint32_t flushedStore(const json& trace, size_t i) {
  const json& s = trace[i];
  for (const json& e : buffersBefore(trace, i, size_t(num(s, "thread"))))
    if (str(e, "address") == str(s, "address")) return uint32_t(num(e, "store_step"));
  return 0;
}

std::string htmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

// A label without its "step N · TN · " head (the row and the lane say it).
std::string laneText(const std::string& label) {
  const std::string dot = " · ";
  const size_t a = label.find(dot);
  const size_t b = a == std::string::npos ? a : label.find(dot, a + dot.size());
  return label.rfind("step ", 0) == 0 && b != std::string::npos ? label.substr(b + dot.size()) : label;
}

size_t threadCount(const json& trace) {
  size_t n = 0;
  for (const json& s : trace) {
    n = std::max(n, size_t(num(s, "thread")) + 1);
    n = std::max(n, s.value("buffers", json::array()).size());
  }
  return n;
}

// The trace index of the failing step: the error (or blocked) step, else the
// violating thread's last step.
size_t failingIndex(const json& payload, const json& trace) {
  for (size_t i = trace.size(); i-- > 0;)
    if (str(trace[i], "event") == "error" || str(trace[i], "event") == "blocked") return i;
  const int64_t t = num(payload["violation"], "thread");
  for (size_t i = trace.size(); i-- > 0;)
    if (num(trace[i], "thread") == t) return i;
  return trace.empty() ? 0 : trace.size() - 1;
}

bool bufferedModel(const json& payload) {
  const std::string m = str(payload, "model");
  return m == "TSO" || m == "PSO";
}

// What each lane is called: "T1 · worker", the function the thread starts in
// (its spawn step's "spawns"; T0 and threads without one: the function their
// first step is in).
std::vector<std::string> laneNames(const json& payload, const json& trace, size_t threads) {
  std::vector<std::string> fn(threads);
  if (threads > 0) fn[0] = str(payload, "function");
  for (const json& s : trace) {
    const int64_t t = num(s, "spawned", -1);
    if (t > 0 && size_t(t) < threads && fn[size_t(t)].empty()) fn[size_t(t)] = str(s, "spawns");
  }
  for (const json& s : trace) {
    const size_t t = size_t(num(s, "thread"));
    if (t < threads && fn[t].empty()) fn[t] = str(s, "function");
  }
  std::vector<std::string> names(threads);
  for (size_t t = 0; t < threads; ++t) names[t] = "T" + std::to_string(t) + (fn[t].empty() ? "" : " · " + fn[t]);
  return names;
}

// One buffer entry's time in its buffer: from the store's row to the flush's
// (to the end of the trace when it is never flushed).
struct BufferSpan {
  size_t thread, from, to, slot;
  bool flushed;
  std::string text;  // "x = 1"
};

std::vector<BufferSpan> bufferSpans(const json& trace) {
  std::map<uint32_t, size_t> indexOfStep;
  for (size_t i = 0; i < trace.size(); ++i) indexOfStep[uint32_t(num(trace[i], "step"))] = i;
  std::vector<BufferSpan> spans;
  std::map<uint32_t, size_t> open;  // store step -> its span
  for (size_t i = 0; i < trace.size(); ++i) {
    const json& bufs = trace[i].value("buffers", json::array());
    for (size_t t = 0; t < bufs.size(); ++t) {
      if (!bufs[t].is_array()) continue;
      for (size_t k = 0; k < bufs[t].size(); ++k) {
        const json& e = bufs[t][k];
        const uint32_t st = uint32_t(num(e, "store_step"));
        if (st == 0 || open.count(st)) continue;
        auto from = indexOfStep.find(st);
        open[st] = spans.size();
        spans.push_back({t, from != indexOfStep.end() ? from->second : i, trace.size() - 1, k, false,
                         str(e, "address") + " = " + std::to_string(num(e, "value"))});
      }
    }
    if (str(trace[i], "event") == "flush")
      if (auto it = open.find(flushedStore(trace, i)); it != open.end()) {
        spans[it->second].to = i;
        spans[it->second].flushed = true;
      }
  }
  return spans;
}

// Geometry of the page's picture (pixels).
constexpr int kStepCol = 44, kLaneW = 250, kRowH = 30, kHeadH = 64, kGutter = 34, kPad = 6;
int laneX(size_t t) { return kStepCol + int(t) * kLaneW; }
int rowY(size_t i) { return kHeadH + int(i) * kRowH; }
int boxW() { return kLaneW - kGutter - 2 * kPad; }

}  // namespace

std::string pictureAnchor(const std::string& file, const std::string& function) {
  std::string id = "check-" + file + "-" + function;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '-';
  return id;
}

namespace {

// " — note — reads — hb": what a step's tooltip adds to its label.
std::string titleNotes(const json& s) {
  std::string out;
  for (const char* key : {"note", "reads", "hb"})
    if (!str(s, key).empty()) out += " — " + htmlEscape(str(s, key));
  return out;
}

}  // namespace

std::vector<ReadSource> readSources(const json& payload) {
  const json& trace = traceOf(payload);
  const bool buffered = bufferedModel(payload);
  std::vector<ReadSource> out;
  for (size_t i = 0; i < trace.size(); ++i) {
    const json& s = trace[i];
    const std::string ev = str(s, "event"), addr = str(s, "address");
    if (!isRead(ev) || addr.empty()) continue;
    ReadSource r;
    r.read = uint32_t(num(s, "step"));
    if (const json& f = s.value("rc11", json()); f.is_object()) {
      // RC11: the report says which write each read read and which
      // coherence-later write a stale read missed.
      r.source = uint32_t(num(f, "reads_from"));
      r.missed = uint32_t(num(f, "missed"));
      r.stale = r.missed != 0;
      out.push_back(r);
      continue;
    }
    if (ev == "load-buffer") {
      const json& own = buffersBefore(trace, i, size_t(num(s, "thread")));
      for (const json& e : own)
        if (str(e, "address") == addr) r.source = uint32_t(num(e, "store_step"));  // the newest wins
    } else {
      // The last write that reached memory; a load of another value read an
      // older write (RC11): the last one with its value.
      size_t last = trace.size();
      for (size_t j = i; j-- > 0;)
        if (str(trace[j], "address") == addr && writesMemory(str(trace[j], "event"), buffered)) {
          last = j;
          break;
        }
      const bool sameValue = last < trace.size() && trace[last].value("value", json()) == s.value("value", json());
      if (last < trace.size() && (ev == "rmw" || sameValue)) r.source = uint32_t(num(trace[last], "step"));
      else
        for (size_t j = i; j-- > 0;)
          if (str(trace[j], "address") == addr && writesMemory(str(trace[j], "event"), buffered) &&
              trace[j].value("value", json()) == s.value("value", json())) {
            r.source = uint32_t(num(trace[j], "step"));
            break;
          }
    }
    const json& stale = s.value("stale", json());
    if (stale.is_object()) {
      r.stale = true;
      r.missed = uint32_t(num(stale, "store_step"));
    }
    out.push_back(r);
  }
  return out;
}

std::string pictureSection(const json& payload) {
  const json& trace = traceOf(payload);
  if (trace.empty()) return "";
  const json& v = payload["violation"];
  const size_t threads = threadCount(trace), failing = failingIndex(payload, trace);
  const bool buffered = bufferedModel(payload);
  std::map<uint32_t, size_t> indexOfStep;
  for (size_t i = 0; i < trace.size(); ++i) indexOfStep[uint32_t(num(trace[i], "step"))] = i;
  const int width = laneX(threads) + 8, height = rowY(trace.size()) + 12;
  std::ostringstream o;
  const std::string fn = str(payload, "function"), model = str(payload, "model");
  o << "<section class=\"check\" id=\"" << pictureAnchor(str(payload, "file"), fn) << "\" data-function=\""
    << htmlEscape(fn) << "\">\n<h2>" << htmlEscape(fn) << " <small>under "
    << htmlEscape(model) << "</small></h2>\n<p class=\"message\">" << htmlEscape(str(v, "message")) << " <small>("
    << htmlEscape(str(v, "file")) << ":" << num(v, "line") << ")</small></p>\n";
  o << "<p class=\"legend\">"
    << (buffered ? "<span class=\"key buffer\"></span> a store in its thread's buffer, from the store to its flush; "
                 : "No store buffers under " + htmlEscape(model) + ": each arrow shows the write a read takes. ")
    << "<span class=\"key arrow\"></span> a read and the write it read; <span class=\"key stale\"></span> a stale "
       "read (red), <span class=\"key missed\"></span> the newer store it missed; <span class=\"key failing\"></span> "
       "the failing step. Click a step to go to its line.</p>\n";
  o << "<div class=\"picture\" style=\"width:" << width << "px;height:" << height << "px\">\n";
  // Lanes, buffer spans and arrows under the step boxes.
  o << "<svg class=\"drawing\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
    << height << "\">\n"
    << "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
       "orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" class=\"head\"/></marker>"
       "<marker id=\"head-stale\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
       "orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" class=\"head-stale\"/></marker></defs>\n";
  const std::vector<std::string> names = laneNames(payload, trace, threads);
  for (size_t t = 0; t < threads; ++t)
    o << "<rect class=\"lane\" data-thread=\"" << t << "\" x=\"" << laneX(t) + 2 << "\" y=\"4\" width=\""
      << kLaneW - 4 << "\" height=\"" << height - 8 << "\" rx=\"6\"/>\n";
  o << "<rect class=\"init\" x=\"" << kStepCol << "\" y=\"" << kHeadH - 22 << "\" width=\"" << laneX(threads) - kStepCol
    << "\" height=\"16\" rx=\"3\"/><text class=\"init-text\" x=\"" << kStepCol + 8 << "\" y=\"" << kHeadH - 10
    << "\">memory: initial values</text>\n";
  for (const BufferSpan& b : bufferSpans(trace)) {
    const int x = laneX(b.thread) + kLaneW - kGutter + 4 + int(std::min<size_t>(b.slot, 4)) * 6;
    const int y1 = rowY(b.from) + kRowH / 2, y2 = rowY(b.to) + (b.flushed ? kRowH / 2 : kRowH);
    o << "<rect class=\"buffer" << (b.flushed ? "" : " unflushed") << "\" x=\"" << x << "\" y=\"" << y1
      << "\" width=\"5\" height=\"" << std::max(2, y2 - y1) << "\" rx=\"2\"><title>" << htmlEscape(b.text)
      << (b.flushed ? " in the store buffer until its flush" : " still in the store buffer") << "</title></rect>\n";
  }
  // Arrows: from a read's box to its source's (the initial-values band for step 0).
  auto boxLeft = [](size_t t) { return laneX(t) + kPad; };
  for (const ReadSource& r : readSources(payload)) {
    const size_t ri = indexOfStep.at(r.read), rt = size_t(num(trace[ri], "thread"));
    const int ry = rowY(ri) + kRowH / 2;
    auto path = [&](size_t si, const char* cls, const char* marker) {
      const size_t st = size_t(num(trace[si], "thread"));
      const int sy = rowY(si) + kRowH / 2;
      int x1, x2;
      std::string d;
      if (st == rt) {  // same lane: a bow out of the left edge
        x1 = x2 = boxLeft(rt);
        const int bow = x1 - 26 - int(std::min<size_t>(ri - si, 8)) * 2;
        d = "M" + std::to_string(x1) + "," + std::to_string(ry) + " C" + std::to_string(bow) + "," +
            std::to_string(ry) + " " + std::to_string(bow) + "," + std::to_string(sy) + " " + std::to_string(x2) +
            "," + std::to_string(sy);
      } else {
        x1 = st < rt ? boxLeft(rt) : boxLeft(rt) + boxW();
        x2 = st < rt ? boxLeft(st) + boxW() : boxLeft(st);
        const int mid = (x1 + x2) / 2;
        d = "M" + std::to_string(x1) + "," + std::to_string(ry) + " C" + std::to_string(mid) + "," +
            std::to_string(ry) + " " + std::to_string(mid) + "," + std::to_string(sy) + " " + std::to_string(x2) +
            "," + std::to_string(sy);
      }
      o << "<path class=\"" << cls << "\" data-from=\"" << r.read << "\" data-to=\"" << trace[si].value("step", 0)
        << "\" d=\"" << d << "\" marker-end=\"url(#" << marker << ")\"/>\n";
    };
    const char* cls = r.stale ? "arrow stale" : "arrow";
    const char* marker = r.stale ? "head-stale" : "head";
    if (auto src = indexOfStep.find(r.source); r.source != 0 && src != indexOfStep.end()) path(src->second, cls, marker);
    else {
      const int x = boxLeft(rt) + 14;
      o << "<path class=\"" << cls << "\" data-from=\"" << r.read << "\" data-to=\"0\" d=\"M" << x << "," << rowY(ri)
        << " L" << x << "," << kHeadH - 5 << "\" marker-end=\"url(#" << marker << ")\"/>\n";
    }
    if (auto m = indexOfStep.find(r.missed); r.missed != 0 && m != indexOfStep.end())
      path(m->second, "missed", "head-stale");
  }
  o << "</svg>\n";
  for (size_t t = 0; t < threads; ++t)
    o << "<div class=\"lane-head\" style=\"left:" << laneX(t) + kPad << "px;width:" << kLaneW - 2 * kPad << "px\">"
      << htmlEscape(names[t]) << "</div>\n";
  for (size_t i = 0; i < trace.size(); ++i) {
    const json& s = trace[i];
    const size_t t = size_t(num(s, "thread"));
    const std::string label = str(s, "label"), ev = str(s, "event");
    // (RC11: a read that missed a coherence-later write.)
    const bool stale = s.value("stale", json()).is_object() || num(s.value("rc11", json()), "missed") != 0;
    o << "<div class=\"row-num\" style=\"top:" << rowY(i) << "px\">" << num(s, "step") << "</div>";
    o << "<div class=\"step ev-" << htmlEscape(ev) << (stale ? " stale" : "") << (i == failing ? " failing" : "")
      << "\" data-step=\"" << num(s, "step") << "\" data-thread=\"" << t << "\" data-file=\""
      << htmlEscape(str(s, "file")) << "\" data-line=\"" << num(s, "line") << "\" title=\"" << htmlEscape(label)
      << titleNotes(s) << "\" tabindex=\"0\" style=\"left:"
      << laneX(t) + kPad << "px;top:" << rowY(i) + 3 << "px;width:" << boxW() << "px\">"
      << (i == failing ? "✗ " : "") << htmlEscape(laneText(label)) << "</div>\n";
  }
  o << "</div>\n</section>\n";
  return o.str();
}

std::string picturePage(const std::vector<const CheckReport*>& checks, const std::string& title) {
  std::string sections, others;
  for (const CheckReport* c : checks) {
    const std::string s = pictureSection(tracePayload(*c));
    if (!s.empty()) sections += s;
    else
      others += "<li>" + htmlEscape(c->function) + " under " + modelName(c->model) + ": " + statusName(c->result.status) +
                " — " + htmlEscape(c->result.message) + "</li>\n";
  }
  std::string body = sections.empty() ? "<p class=\"none\">No violation: there is no interleaving to draw.</p>\n" : sections;
  if (!others.empty()) body += "<h2>Checks without a violation</h2>\n<ul class=\"others\">\n" + others + "</ul>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'\">\n<title>" +
         htmlEscape(title) +
         "</title>\n<style>\n"
         "body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#1f2328;background:#fff}\n"
         "h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 4px}small{color:#57606a;font-weight:normal}\n"
         ".message{margin:2px 0 4px;font-weight:600;color:#b3261e}.legend{margin:0 0 8px;color:#57606a;max-width:900px}\n"
         ".key{display:inline-block;width:14px;height:8px;margin:0 3px 0 2px;vertical-align:middle;border-radius:2px}\n"
         ".key.buffer{background:#e8a33d}.key.arrow{background:#57606a;height:2px}.key.stale{background:#d1242f;height:3px}\n"
         ".key.missed{border-top:2px dashed #d1242f;height:0}.key.failing{border:2px solid #d1242f;background:#ffebe9}\n"
         ".picture{position:relative;font:12px/1.2 ui-monospace,'DejaVu Sans Mono',monospace}\n"
         ".drawing{position:absolute;left:0;top:0}\n"
         ".lane{fill:#f6f8fa;stroke:#d0d7de}.init{fill:#eaeef2}.init-text{font:11px monospace;fill:#57606a}\n"
         ".buffer{fill:#e8a33d}.buffer.unflushed{fill:#f5cf8e}\n"
         ".arrow{fill:none;stroke:#57606a;stroke-width:1.4}.arrow.stale{stroke:#d1242f;stroke-width:2.4}\n"
         ".missed{fill:none;stroke:#d1242f;stroke-width:1.4;stroke-dasharray:5 3}\n"
         ".head{fill:#57606a}.head-stale{fill:#d1242f}\n"
         ".lane-head{position:absolute;top:10px;font-weight:700;text-align:center;white-space:nowrap;overflow:hidden;"
         "text-overflow:ellipsis}\n"
         ".row-num{position:absolute;left:0;width:36px;text-align:right;color:#8c959f;line-height:30px}\n"
         ".step{position:absolute;height:22px;line-height:22px;padding:0 6px;box-sizing:border-box;background:#fff;"
         "border:1px solid #afb8c1;border-radius:4px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;"
         "cursor:pointer}\n"
         ".step:hover,.step:focus{border-color:#0969da;outline:none;box-shadow:0 0 0 2px #b6e3ff}\n"
         ".step.selected{border-color:#0969da;background:#ddf4ff}\n"
         ".ev-store{background:#fff8c5}.ev-flush{background:#fbefdc}.ev-load-memory,.ev-load-buffer,.ev-rmw{"
         "background:#eef6ff}\n"
         ".step.stale{border:2px solid #d1242f}.step.failing{border:2px solid #d1242f;background:#ffebe9;color:#82071e;"
         "font-weight:700}\n"
         "@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}.lane{fill:#161b22;stroke:#30363d}"
         ".step{background:#0d1117;color:#e6edf3;border-color:#484f58}.ev-store{background:#3b2e00}.ev-flush{"
         "background:#3d2a0f}.ev-load-memory,.ev-load-buffer,.ev-rmw{background:#0c2d6b}.init{fill:#21262d}"
         ".step.failing{background:#490202;color:#ffdcd7}}\n"
         "</style>\n</head>\n<body>\n<h1>" +
         htmlEscape(title) + "</h1>\n" + body +
         "<script>\n"
         "(function(){\n"
         "  var host = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : null;\n"
         "  function pick(el){\n"
         "    document.querySelectorAll('.step.selected').forEach(function(e){e.classList.remove('selected');});\n"
         "    el.classList.add('selected');\n"
         "    var msg = {step: Number(el.dataset.step), file: el.dataset.file, line: Number(el.dataset.line)};\n"
         "    window.tsocheckPicked = msg;\n"
         "    if (host) host.postMessage(msg);\n"
         "  }\n"
         "  document.addEventListener('click', function(e){var el = e.target.closest('[data-step]'); if (el) pick(el);});\n"
         "  document.addEventListener('keydown', function(e){\n"
         "    if (e.key !== 'Enter') return; var el = e.target.closest && e.target.closest('[data-step]'); if (el) pick(el);\n"
         "  });\n"
         "})();\n"
         "</script>\n</body>\n</html>\n";
}

namespace {

// Display width of UTF-8 text (one column per code point).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}
// `s` cut to `w` columns ("…" ending a cut) and padded to them.
std::string fit(const std::string& s, size_t w) {
  if (columns(s) <= w) return s + std::string(w - columns(s), ' ');
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++n > w - 1) break;
    out += s[i];
  }
  return out + "…";
}

}  // namespace

PictureText pictureText(const json& payload) {
  const json& trace = traceOf(payload);
  if (trace.empty()) return {};
  const json& v = payload["violation"];
  const size_t threads = threadCount(trace), failing = failingIndex(payload, trace);
  constexpr size_t kMaxLane = 30;
  const std::vector<std::string> names = laneNames(payload, trace, threads);
  std::vector<size_t> w(threads, 4);
  for (size_t t = 0; t < threads; ++t) w[t] = std::max(w[t], std::min(kMaxLane, columns(names[t])));
  for (const json& s : trace) {
    const size_t t = size_t(num(s, "thread"));
    if (t < threads) w[t] = std::max(w[t], std::min(kMaxLane, columns(laneText(str(s, "label"))) + 2));
  }
  std::map<uint32_t, ReadSource> reads;
  for (const ReadSource& r : readSources(payload)) reads[r.read] = r;
  PictureText out;
  size_t rows = 0;
  // One line of the text: a line break inside it (a message quoting source)
  // becomes a space, so that `row` counts lines; no line ends in spaces.
  auto emit = [&](std::string line) {
    std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    line.erase(line.find_last_not_of(' ') + 1);
    out.text += line + "\n";
    return rows++;
  };
  // The headline, then the violation's summary as the payload words it (what
  // failed, the stale read, the store buffers then); without one: its message.
  emit(str(payload, "function") + " under " + str(payload, "model"));
  for (const json& l : v.value("summary", json::array()))
    if (l.is_string()) emit("  " + l.get<std::string>());
  if (rows == 1) emit("  " + str(v, "message") + " (" + str(v, "file") + ":" + std::to_string(num(v, "line")) + ")");
  emit("");
  std::string head = "step ";
  for (size_t t = 0; t < threads; ++t) head += " " + fit(names[t], w[t]);
  emit(head);
  for (size_t i = 0; i < trace.size(); ++i) {
    const json& s = trace[i];
    const size_t t = size_t(num(s, "thread"));
    std::ostringstream o;
    std::string num4 = std::to_string(num(s, "step"));
    o << std::string(num4.size() < 4 ? 4 - num4.size() : 0, ' ') << num4 << " ";
    // Other lanes show a thread's pending stores ("┆ x=1").
    const json& bufs = s.value("buffers", json::array());
    for (size_t u = 0; u < threads; ++u) {
      std::string cell;
      if (u == t) cell = (i == failing ? "✗ " : "") + laneText(str(s, "label"));
      else if (u < bufs.size() && bufs[u].is_array() && !bufs[u].empty()) {
        cell = "┆";
        for (const json& e : bufs[u]) cell += " " + str(e, "address") + "=" + std::to_string(num(e, "value"));
      }
      o << " " << fit(cell, w[u]);
    }
    if (auto r = reads.find(uint32_t(num(s, "step"))); r != reads.end()) {
      o << "  ← " << (r->second.source ? "step " + std::to_string(r->second.source) : std::string("initial value"));
      if (r->second.stale)
        o << "  STALE" << (r->second.missed ? ": missed step " + std::to_string(r->second.missed) : std::string());
    }
    if (i == failing) o << "  ✗ fails here";
    out.steps.push_back({{"row", emit(o.str())}, {"step", num(s, "step")}, {"file", str(s, "file")},
                         {"line", num(s, "line")}, {"column", num(s, "column")}});
  }
  return out;
}

}  // namespace tsocheck
