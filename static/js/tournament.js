// The tournament pages (templates/tournaments.html, tournament.html): enter an event, play
// its next board, create an event. The pages are drawn by the server; this only acts.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const root = document.querySelector("[data-page]");

async function run(button, action) {
  if (button) button.disabled = true;
  try {
    await action();
  } catch (error) {
    toast(t("tour.action_failed", { message: error.message }));
    if (button) button.disabled = false;
  }
}

const enter = document.getElementById("btn-enter");
if (enter) {
  enter.addEventListener("click", () =>
    run(enter, async () => {
      await api(`/api/tournaments/${encodeURIComponent(root.dataset.event)}/enter`, { method: "POST" });
      window.location.reload();
    }),
  );
}

const play = document.getElementById("btn-play");
if (play) {
  play.addEventListener("click", () =>
    run(play, async () => {
      const board = play.dataset.board;
      const data = await api(`/api/tournaments/${encodeURIComponent(root.dataset.event)}/boards/${board}/play`, { method: "POST" });
      window.location.assign(data.url);
    }),
  );
}

const live = document.getElementById("live-form");
if (live) {
  live.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = live.querySelector("button[type=submit]");
    run(button, async () => {
      const values = new FormData(live);
      const body = {
        variant: String(values.get("variant")),
        rounds: Number(values.get("rounds")),
        boards: Number(values.get("boards")),
        clock: Number(values.get("clock")),
        starts_at: new Date(String(values.get("starts_at"))).toISOString(), // the browser's local time
      };
      const data = await api("/api/tournaments/swiss", { method: "POST", body });
      toast(t("tour.created"));
      window.location.assign(data.url);
    });
  });
}

const form = document.getElementById("tour-form");
if (form) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    run(button, async () => {
      const values = new FormData(form);
      const [variant, players] = String(values.get("variant")).split(":");
      const body = {
        variant,
        boards: Number(values.get("boards")),
        hours: Number(values.get("hours")),
        level: String(values.get("level")),
      };
      if (players) body.players = Number(players);
      const data = await api("/api/tournaments", { method: "POST", body });
      toast(t("tour.created"));
      window.location.assign(data.url);
    });
  });
}
