// Profile: make a one-time transfer code, or take another browser's identity with its code.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const createButton = document.getElementById("transfer-create");
const codeBox = document.getElementById("transfer-code-box");
const claimForm = document.getElementById("claim-form");
const claimError = document.getElementById("claim-error");

createButton.addEventListener("click", async () => {
  createButton.disabled = true;
  try {
    const out = await api("/api/me/transfer", { method: "POST" });
    document.getElementById("transfer-code").textContent = out.code;
    const expires = new Date(out.expires_at);
    document.getElementById("transfer-expiry").textContent = t("transfer.expires", { when: expires.toLocaleString() });
    codeBox.hidden = false;
    createButton.textContent = t("transfer.create_again");
  } catch (error) {
    toast(error.message);
  } finally {
    createButton.disabled = false;
  }
});

claimForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  claimError.hidden = true;
  const code = document.getElementById("claim-code").value.trim();
  if (!code) return;
  if (!window.confirm(t("transfer.confirm"))) return;
  try {
    await api("/api/me/claim", { method: "POST", body: { code } });
    toast(t("transfer.done"));
    location.reload();
  } catch (error) {
    claimError.textContent = error.status === 404 || error.status === 422 ? t("transfer.invalid") : error.message;
    claimError.hidden = false;
  }
});
