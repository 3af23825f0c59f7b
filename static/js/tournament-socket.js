// @ts-check
// The socket of a tournament's event (/ws/tournaments/{id}; docs/protocol.md): each message is
// the event's whole data as this player may see it. It reconnects by itself, waiting 0.5 s,
// then twice as long each time up to 10 s, and again 0.5 s once a message arrives.

/**
 * Follow the event ``eventId``: ``onData`` gets the event's data at each change.
 * @param {string} eventId
 * @param {(data: any) => void} onData
 * @returns {{ stop: () => void, renew: () => void }} ``stop`` ends it; ``renew`` opens a new
 *   socket at once (after registering, so that the socket speaks to this player)
 */
export function watchEvent(eventId, onData) {
  let delay = 500;
  let stopped = false;
  /** @type {WebSocket | null} */
  let socket = null;
  const connect = () => {
    if (stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/tournaments/${encodeURIComponent(eventId)}`);
    socket.addEventListener("message", (message) => {
      let msg;
      try {
        msg = JSON.parse(message.data);
      } catch {
        return;
      }
      if (msg.type !== "tournament") return;
      delay = 500;
      onData(msg.data);
    });
    socket.addEventListener("close", () => {
      socket = null;
      if (stopped) return;
      setTimeout(connect, delay);
      delay = Math.min(10000, Math.max(500, delay * 2));
    });
  };
  connect();
  return {
    stop() {
      stopped = true;
      if (socket) socket.close();
    },
    renew() {
      delay = 0;
      if (socket) socket.close(); // its close handler opens the next one
    },
  };
}
