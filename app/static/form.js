// bufsize operators' page: copies the device configuration, draws the three charts and runs
// "Check by simulation".
// Reads only the page's own data (#chart-data, built by app/web/view.py); the one call to the
// verification API is verify().
"use strict";

(function () {
  const dataNode = document.getElementById("chart-data");
  const results = document.getElementById("results");
  if (!dataNode) return;
  const data = JSON.parse(dataNode.textContent);
  // After a submission, keyboard and screen-reader users continue at the answer; on a narrow
  // screen (one column, form first) the answer is scrolled to the top.
  if (results && window.location.search) {
    results.focus({ preventScroll: true });
    if (window.innerWidth <= 900) results.scrollIntoView({ block: "start" });
  }

  // ----- copy the device configuration ----------------------------------------------------------
  const copyButton = document.getElementById("copy-snippet");
  const snippet = document.getElementById("device-snippet");
  const copyStatus = document.getElementById("copy-status");
  if (copyButton && snippet) {
    let clearTimer = null;
    const tell = (text) => {
      copyStatus.textContent = text;
      if (clearTimer) clearTimeout(clearTimer);
      clearTimer = setTimeout(() => { copyStatus.textContent = ""; }, 4000);
    };
    const selectSnippet = () => {
      const range = document.createRange();
      range.selectNodeContents(snippet);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    };
    copyButton.addEventListener("click", async () => {
      try {
        if (!navigator.clipboard) throw new Error("no clipboard on a page served without HTTPS");
        await navigator.clipboard.writeText(snippet.textContent);
        tell("Copied");
      } catch (err) {
        // The browser refused: leave the text selected for Ctrl+C.
        selectSnippet();
        tell("Could not copy (" + err.message + "): the text is selected, press Ctrl+C");
      }
    });
    copyButton.disabled = false; // enabled once this script can run it
  }

  const CHARTS = [
    { id: "chart-utilization", key: "utilization", title: "Utilization (of what the traffic can carry)",
      axis: { tickformat: ".0%", rangemode: "tozero" }, scale: 1, target: "utilization",
      sim: "utilization", simLabel: "simulated utilization",
      missing: "Not predicted for these inputs" },
    { id: "chart-loss", key: "loss", title: "Loss probability", axis: { type: "log", tickformat: ".0e" },
      scale: 1, target: "loss", sim: "loss_rate", simLabel: "simulated loss",
      missing: "Loss not predicted for these inputs" },
    { id: "chart-delay", key: "delay_s", title: "Queueing delay of a full buffer (ms)", axis: { rangemode: "tozero" },
      scale: 1000, target: "delay_s", sim: "queue_delay_p99_s", simLabel: "simulated p99 delay",
      missing: "Not predicted for these inputs" },
  ];
  // Offline: no button that sends the chart to a cloud service, no logo, no link out.
  const CONFIG = { responsive: true, displaylogo: false, showSendToCloud: false, showEditInChartStudio: false,
    showLink: false, modeBarButtonsToRemove: ["lasso2d", "select2d", "sendDataToCloud", "editInChartStudio"] };
  //: Smallest loss drawn: below it a probability is zero for an operator (and Plotly would
  //: label every decade down to 1e-313).
  const LOSS_FLOOR = 1e-9;

  function value(v, chart) {
    if (v === null || v === undefined || !isFinite(v)) return null;
    if (chart.axis.type === "log" && v <= 0) return null;
    return v * chart.scale;
  }

  // The toolbar's buttons are for the mouse: out of the Tab order (the figures' data is in
  // the table and the downloads), re-applied whenever Plotly redraws the toolbar.
  function untab(id) {
    document.querySelectorAll("#" + id + " .modebar-btn, #" + id + " .modebar a").forEach((b) => {
      b.setAttribute("tabindex", "-1");
    });
  }

  // A log axis over the values that can be read: from the largest down at most 8 decades,
  // never below LOSS_FLOOR.
  function logRange(values) {
    const finite = values.filter((v) => v !== null && v > 0);
    if (!finite.length) return null;
    const top = Math.max(...finite);
    const low = Math.max(Math.min(...finite), top * 1e-8, LOSS_FLOOR);
    const hi = Math.log10(top) + 0.3;
    const lo = Math.min(Math.log10(low) - 0.3, hi - 1);
    return [lo, hi];
  }

  function drawChart(chart) {
    const curve = data.curve;
    const rec = data.recommended;
    const target = (data.targets || {})[chart.target];
    let ys = curve[chart.key].map((v) => value(v, chart));
    let curveName = "predicted";
    const worst = data.worst_case && data.worst_case[chart.key];
    if (!ys.some((v) => v !== null) && worst) {
      // N_b not given: the worst case (every flow bottlenecked here), labelled so.
      ys = worst.map((v) => value(v, chart));
      curveName = data.worst_case.label;
    }
    const traces = [
      { x: curve.buffer_packets, y: ys, mode: "lines",
        name: curveName, line: { color: "#0b5cad", width: 2, dash: curveName === "predicted" ? "solid" : "dash" },
        hovertemplate: "%{x:,.0f} packets<br>%{y:.3g}<extra>" + curveName + "</extra>" },
      { x: data.rules.map((r) => r.buffer_packets), y: data.rules.map((r) => value(r[chart.key], chart)),
        text: data.rules.map((r) => r.name), mode: "markers", name: "each rule's size",
        marker: { size: 9, color: "#57606a", symbol: "circle-open", line: { width: 2 } },
        hovertemplate: "%{text}<br>%{x:,.0f} packets<br>%{y:.3g}<extra></extra>" },
      { x: [rec.buffer_packets], y: [value(rec[chart.key], chart)], text: [rec.name], mode: "markers",
        name: "recommended", marker: { size: 18, color: "#e36209", symbol: "star", line: { width: 1, color: "#7a2e00" } },
        hovertemplate: "recommended (%{text})<br>%{x:,.0f} packets<br>%{y:.3g}<extra></extra>" },
    ];
    const axis = Object.assign({}, chart.axis);
    const shapes = [{ type: "line", xref: "x", yref: "paper", x0: rec.buffer_packets, x1: rec.buffer_packets,
      y0: 0, y1: 1, line: { color: "#e36209", width: 1, dash: "dot" } }];
    const annotations = [];
    const targetY = target === undefined || target === null ? null : value(target.value, chart);
    if (targetY !== null) {
      shapes.push({ type: "line", xref: "paper", yref: "y", x0: 0, x1: 1, y0: targetY, y1: targetY,
        line: { color: "#cf222e", width: 1.5, dash: "dash" } });
      annotations.push({ text: target.label, xref: "paper", yref: "y", x: 1, y: axis.type === "log" ? Math.log10(targetY) : targetY,
        xanchor: "right", yanchor: "bottom", showarrow: false, font: { size: 11, color: "#cf222e" } });
    }
    if (axis.type === "log") {
      const range = logRange([...ys, ...traces[1].y, targetY]);
      if (range) axis.range = range;
    }
    const layout = {
      title: { text: chart.title, font: { size: 14 } },
      margin: { l: 60, r: 12, t: 40, b: 48 },
      xaxis: { type: "log", title: { text: "buffer (packets)" }, exponentformat: "power" },
      yaxis: axis,
      legend: { orientation: "h", y: -0.3, font: { size: 11 } },
      shapes: shapes,
      annotations: annotations,
      font: { size: 12 },
    };
    if (!ys.some((v) => v !== null)) {
      // The engine predicts nothing of this quantity for these inputs: say so on the chart.
      annotations.push({ text: chart.missing, showarrow: false, xref: "paper", yref: "paper",
        x: 0.5, y: 0.5, font: { size: 13, color: "#7a4d00" } });
    }
    return Plotly.newPlot(chart.id, traces, layout, CONFIG).then((div) => {
      untab(chart.id);
      div.on("plotly_afterplot", () => untab(chart.id));
      return div;
    });
  }

  CHARTS.forEach(drawChart);

  // ----- check by simulation -------------------------------------------------------------------
  const plan = data.simulation;
  const startButton = document.getElementById("simulate");
  const searchButton = document.getElementById("search");
  let searching = false; // the running request asks for the search (validation/size_search.py)
  const cancelButton = document.getElementById("cancel");
  const bar = document.getElementById("sim-progress");
  const status = document.getElementById("sim-status");
  let jobId = null;
  const jobTokens = {}; // job id -> its capability token (X-Job-Token), needed to cancel
  let timer = null;
  let running = false;

  function say(text, failed) {
    status.textContent = text;
    status.classList.toggle("failed", Boolean(failed));
  }

  function finish() {
    if (timer) clearTimeout(timer);
    timer = null;
    jobId = null;
    running = false;
    startButton.disabled = false;
    searchButton.disabled = false;
    cancelButton.hidden = true;
  }

  function overlay(result) {
    const points = result.sizes;
    CHARTS.forEach((chart) => {
      Plotly.addTraces(chart.id, {
        x: points.map((p) => p.buffer_packets), y: points.map((p) => value(p[chart.sim], chart)),
        mode: "markers", name: chart.simLabel + " (99% CI)", text: points.map((p) => p.label),
        error_y: { type: "data", visible: true, color: "#1a7f37",
          array: points.map((p) => (p[chart.sim + "_ci99"] || 0) * chart.scale) },
        marker: { size: 8, color: "#1a7f37", symbol: "diamond" },
        customdata: points.map((p) => p.simulated_buffer_packets),
        hovertemplate: "%{text}: %{customdata} packets simulated (drawn at %{x:,.0f})<br>%{y:.3g}<extra>simulation</extra>",
      });
    });
  }

  function cell(row, text, numeric) {
    const td = document.createElement("td");
    td.textContent = text;
    if (numeric) td.className = "num";
    row.appendChild(td);
  }

  function fmt(v, digits) {
    return v === null || v === undefined ? "—" : Number(v).toPrecision(digits || 3);
  }

  function withCi(p, key, scale) {
    const v = p[key];
    if (v === null || v === undefined) return "—";
    const ci = p[key + "_ci99"];
    const s = scale || 1;
    return fmt(v * s) + (ci ? " ± " + fmt(ci * s, 2) : "");
  }

  function show(result) {
    const scaling = document.getElementById("sim-scaling");
    const table = document.getElementById("sim-verdicts");
    const body = table.querySelector("tbody");
    scaling.textContent = "Scaling: " + result.scaling.reason + ".";
    scaling.hidden = false;
    showLimitations(result.not_represented);
    // Every size, then each again at the slow end of the access rates when that was assumed.
    body.replaceChildren(...result.sizes.concat(result.slow_sizes || []).map((s) => {
      const row = document.createElement("tr");
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = s.label;
      row.appendChild(head);
      cell(row, s.buffer_packets.toLocaleString(), true);
      cell(row, withCi(s, "utilization"), true);
      cell(row, withCi(s, "loss_rate"), true);
      cell(row, withCi(s, "queue_delay_p99_s", 1000), true);
      cell(row, "targets " + s.verdict + ", prediction " + s.prediction + " (" + s.replications +
        " runs)" + (s.reason ? ": " + s.reason : ""));
      return row;
    }));
    table.hidden = result.sizes.length === 0;
    if (result.sizes.length) overlay(result);
    if (!result.sizes.length) {
      // Nothing was simulated: the check was refused, and the reason is the answer.
      say("Check refused (" + result.verdict + "): this link was not simulated. " +
          (result.reason || result.scaling.reason || ""), true);
      return;
    }
    say("Simulation done: targets " + result.verdict + (result.reason ? " — " + result.reason : "") +
        " The green diamonds on the charts are the simulated points with their 99 % intervals.",
        result.verdict !== "met");
  }

  // What the check could not represent of the link: one item each, the list hidden when none.
  function showLimitations(limitations) {
    const list = document.getElementById("sim-limitations");
    const items = limitations || [];
    list.querySelector("ul").replaceChildren(...items.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }));
    list.hidden = items.length === 0;
  }

  // The search's answer: every size tried in the table, the size found (or why none) above it.
  function showSearch(found) {
    showLimitations(found.not_represented);
    const table = document.getElementById("sim-verdicts");
    const body = table.querySelector("tbody");
    body.replaceChildren(...found.tried.map((t) => {
      const row = document.createElement("tr");
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = t.buffer_packets === found.found_packets ? "found"
        : (t.buffer_packets === found.smaller_packets ? "one step smaller" : "tried");
      row.appendChild(head);
      cell(row, t.buffer_packets.toLocaleString(), true);
      cell(row, withCi(t.check, "utilization"), true);
      cell(row, withCi(t.check, "loss_rate"), true);
      cell(row, withCi(t.check, "queue_delay_p99_s", 1000), true);
      cell(row, "targets " + t.check.verdict + " (" + t.check.replications + " runs)" +
        (t.slow_access ? ", slow access: " + t.slow_access.verdict : "") + ": " + t.check.reason);
      return row;
    }));
    table.hidden = found.tried.length === 0;
    say("Search done: " + found.reason, found.found_packets === null);
  }

  // The one call to the verification API: starts the check, and polls by sending it again.
  async function verify() {
    let answer, body;
    try {
      answer = await fetch("/v1/verifications", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(searching ? { ...plan.request, search: true } : plan.request),
      });
      body = await answer.json();
    } catch (err) {
      say("Could not check by simulation: " + err.message, true);
      return finish();
    }
    if (!answer.ok) {
      const detail = Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join("; ") : body.detail;
      say("Could not check by simulation: " + detail, true);
      return finish();
    }
    if (!running) return; // cancelled meanwhile
    jobId = body.id;
    if (body.token) jobTokens[body.id] = body.token; // given once, by the POST that made the job
    bar.value = body.progress;
    if (answer.status === 200) {
      if (searching) showSearch(body.search);
      else show(body.verification);
      finish();
    } else if (body.status === "failed" || body.status === "cancelled") {
      say("The simulation " + body.status + ": " + (body.message || "no reason given"), true);
      finish();
    } else {
      cancelButton.hidden = !jobId;
      const what = body.status === "queued" ? "Waiting for a worker"
        : (body.message && /preparing the simulator/.test(body.message) ? body.message : "Simulating");
      say(what + ": " + Math.round(body.progress * 100) + " %");
      timer = setTimeout(verify, 1000);
    }
  }

  function startSimulation() {
    searching = false;
    start();
  }

  function startSearch() {
    searching = true;
    start();
  }

  function start() {
    startButton.disabled = true;
    searchButton.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    running = true;
    say("Starting the simulation…");
    verify();
  }

  async function cancelSimulation() {
    if (!jobId) return;
    const id = jobId;
    running = false;
    if (timer) clearTimeout(timer);
    cancelButton.disabled = true;
    say("Cancelling…");
    try {
      const headers = jobTokens[id] ? { "X-Job-Token": jobTokens[id] } : {};
      let answer = await fetch("/v1/simulations/" + id, { method: "DELETE", headers });
      let job = await answer.json();
      // A running job stops at its next progress report (about a second): wait to see it stop.
      while (answer.ok && (job.status === "queued" || job.status === "running")) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = await fetch("/v1/simulations/" + id);
        job = await answer.json();
      }
      if (!answer.ok) say("Could not cancel the simulation job " + id + ": " + job.detail, true);
      else if (job.status === "cancelled") say("Simulation cancelled.");
      else say("The simulation job " + id + " " + job.status + " before it could be cancelled.", true);
    } catch (err) {
      say("Could not cancel the simulation job " + id + ": " + err.message, true);
    } finally {
      cancelButton.disabled = false;
      finish();
    }
  }

  startButton.addEventListener("click", startSimulation);
  searchButton.addEventListener("click", startSearch);
  cancelButton.addEventListener("click", cancelSimulation);
  startButton.disabled = false; // enabled once this script can run it
  searchButton.disabled = false;
})();
