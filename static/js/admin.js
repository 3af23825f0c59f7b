// The admin page (templates/admin.html): confirmations before the actions that change
// something, and the small charts of the server's figures. The page works without it.

const data = JSON.parse(document.getElementById("admin-data")?.textContent || "{}");

for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(data.confirm || "?")) event.preventDefault();
  });
}

// The histograms of /metrics: one bar per bucket, its height set through the CSSOM (the
// policy refuses style attributes).
const charts = JSON.parse(document.getElementById("admin-charts")?.textContent || "null");
if (charts) {
  for (const box of document.querySelectorAll("[data-chart]")) {
    const histogram = charts[box.dataset.chart];
    if (!histogram) continue;
    const counts = histogram.counts || [];
    const most = Math.max(1, ...counts);
    const labels = document.createElement("div");
    labels.className = "bars-labels";
    counts.forEach((count, i) => {
      const bar = document.createElement("span");
      bar.style.height = `${Math.round((100 * count) / most)}%`;
      const bound = histogram.bounds_ms[i];
      bar.title = `${bound === undefined ? ">" + histogram.bounds_ms.at(-1) : "≤ " + bound} ms: ${count}`;
      box.append(bar);
      const label = document.createElement("span");
      label.textContent = bound === undefined ? "+" : String(bound);
      labels.append(label);
    });
    box.after(labels);
  }
}
