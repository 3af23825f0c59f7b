// The game connection (docs/protocol.md): one WebSocket, reconnected by itself with backoff,
// resynchronised with `resume` and the last version seen, keep-alive pings.

const MAX_DELAY_MS = 8000;
const PING_MS = 20000;
const CLOSE_MOVED = 4001;
const CLOSE_ELSEWHERE = 4002;
// 4002 while a lease runs out (docs/scaling.md): retry about every second, not with the
// growing backoff, so that the table is back within a second of the takeover.
const ELSEWHERE_ATTEMPTS = 1;

export class Connection {
  /**
   * @param {string} gameId
   * @param {{onMessage: (msg: object) => void, onStatus: (status: string) => void,
   *          version: () => number|null}} handlers
   */
  constructor(gameId, handlers) {
    this.gameId = gameId;
    this.handlers = handlers;
    this.ws = null;
    this.attempts = 0;
    this.timer = null;
    this.pinger = null;
    this.closedByUs = false;
    this.counter = 0;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    this.handlers.onStatus("connecting");
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempts = 0;
      this.handlers.onStatus("open");
      const version = this.handlers.version();
      if (version !== null && version !== undefined) this.send({ type: "resume", version });
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), PING_MS);
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.handlers.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      clearInterval(this.pinger);
      this.ws = null;
      if (this.closedByUs) return;
      this.handlers.onStatus("closed");
      // 4001: the room moved to another server process, which already holds it: come back at
      // once. 4002 (served elsewhere: another process holds the room, or held it and its
      // lease is running out): about every second. The rest: the usual backoff
      // (docs/protocol.md)
      if (event.code === CLOSE_MOVED) this.attempts = 0;
      else if (event.code === CLOSE_ELSEWHERE) this.attempts = Math.min(this.attempts, ELSEWHERE_ATTEMPTS);
      this.schedule();
    });
    ws.addEventListener("error", () => {
      /* a close event follows */
    });
  }

  schedule() {
    if (this.timer) return;
    const base = Math.min(MAX_DELAY_MS, 400 * 2 ** this.attempts);
    const delay = base * (0.75 + Math.random() * 0.5);
    this.attempts += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.ws || this.closedByUs) return;
    this.attempts = 0;
    this.connect();
  }

  /** Send a message; false when the socket is not open (the caller resyncs later). */
  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  nextId(prefix = "c") {
    this.counter += 1;
    return `${prefix}-${Date.now().toString(36)}-${this.counter}`;
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
  }
}
