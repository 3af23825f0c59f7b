// The profile's "Your data" section: deleting this browser's identity, once the player ticked
// that they understand (app/web/mydata.py). The download is a plain link.

import { t } from "./i18n.js";

const form = document.getElementById("delete-form");
if (form) {
  const sure = document.getElementById("delete-sure");
  const go = document.getElementById("delete-go");
  const status = document.getElementById("delete-status");
  sure.addEventListener("change", () => {
    go.disabled = !sure.checked;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!sure.checked) return;
    go.disabled = true;
    const response = await fetch("/api/me/delete", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ confirm: true }),
    });
    status.hidden = false;
    if (response.ok) {
      status.textContent = t("data.deleted");
      status.dataset.done = "1";
    } else {
      status.textContent = t("data.delete_failed");
      go.disabled = false;
    }
  });
}
