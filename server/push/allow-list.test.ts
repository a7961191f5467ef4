import { describe, expect, it } from "vitest";
import { endpointRefusal, pushServices } from "./allow-list";

describe("push endpoint allow-list", () => {
  const services = pushServices({ SWITCHBOARD_PUSH_SERVICES: " push.example.org , 127.0.0.1:8443 ,bad host" });

  it("takes the browsers' public push services", () => {
    for (const url of [
      "https://fcm.googleapis.com/fcm/send/abc",
      "https://updates.push.services.mozilla.com/wpush/v2/abc",
      "https://wns2-db5p.notify.windows.com/w/?token=abc",
      "https://web.push.apple.com/QGx",
    ])
      expect(endpointRefusal(url, services)).toBeUndefined();
  });

  it("takes the hosts of SWITCHBOARD_PUSH_SERVICES, on their port", () => {
    expect(endpointRefusal("https://push.example.org/x", services)).toBeUndefined();
    expect(endpointRefusal("https://127.0.0.1:8443/x", services)).toBeUndefined();
    expect(endpointRefusal("https://127.0.0.1:9443/x", services)).toMatch(/127.0.0.1:9443 is not a known push service/);
    expect(endpointRefusal("https://push.example.org:8443/x", services)).toMatch(/not a known push service/);
  });

  it("refuses http, other hosts, look-alikes and user-info with a sentence", () => {
    expect(endpointRefusal("http://fcm.googleapis.com/fcm/send/abc", services)).toBe(
      "A push endpoint must be an https: URL",
    );
    expect(endpointRefusal("https://evil.example/x", services)).toMatch(/^evil.example is not a known push service/);
    expect(endpointRefusal("https://fcm.googleapis.com.evil.example/x", services)).toMatch(/not a known/);
    expect(endpointRefusal("https://notify.windows.com/x", services)).toMatch(/not a known/);
    expect(endpointRefusal("https://u:p@fcm.googleapis.com/x", services)).toMatch(/user name/);
    expect(endpointRefusal("not a url", services)).toMatch(/not a URL/);
  });
});
