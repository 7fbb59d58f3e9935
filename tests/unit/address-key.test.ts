import { describe, expect, it } from "vitest";
import { addressKey } from "@/server/domain/access/address-key";

describe("addressKey", () => {
  it("keys IPv4 and anything that is not an address by itself", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("local")).toBe("local");
    expect(addressKey("not:an:address")).toBe("not:an:address");
    expect(addressKey("1::2::3")).toBe("1::2::3");
  });

  it("keys IPv6 by its /64, however it is spelled", () => {
    const key = "2001:db8:1:2::/64";
    for (const a of [
      "2001:db8:1:2::1",
      "2001:0db8:0001:0002:ffff:ffff:ffff:fffe",
      "2001:DB8:1:2:0:0:0:9",
      "2001:db8:1:2::a%eth0"
    ])
      expect(addressKey(a), a).toBe(key);
    expect(addressKey("2001:db8:1:3::1")).not.toBe(key);
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("keys an IPv4-mapped IPv6 address by its IPv4 address", () => {
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:cb00:7107")).toBe("203.0.113.7");
  });
});
