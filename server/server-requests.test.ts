import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import { onServerRequest } from "./server-requests";

it("runs the hooks in order before the request listeners; a hook that takes a request can hand it on later", async () => {
  const seen: string[] = [];
  onServerRequest((req) => {
    seen.push(`first ${req.url}`);
    req.headers["x-hooked"] = "1";
    return false;
  });
  onServerRequest((req, _res, toNext) => {
    if (req.url !== "/later") return false;
    setTimeout(toNext, 10);
    return true;
  });
  const server = http.createServer((req, res) => res.end(`listener ${req.url} ${req.headers["x-hooked"]}`));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    expect(await (await fetch(`${url}/now`)).text()).toBe("listener /now 1");
    expect(await (await fetch(`${url}/later`)).text()).toBe("listener /later 1");
    expect(seen).toEqual(["first /now", "first /later"]);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});
