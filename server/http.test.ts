import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { EmptyBody, EmptyQuery, ListSessionsQuery } from "@/lib/api";
import { isApiError } from "./errors";
import { readBody, readQuery, route } from "./http";

const URL_BASE = "http://127.0.0.1:3000/api/x";

/** The status and issues an ApiError would answer with, or the value. */
function outcome<T>(fn: () => T): { status: number; issues?: { path: string; code: string }[] } | { value: T } {
  try {
    return { value: fn() };
  } catch (err) {
    if (!isApiError(err)) throw err;
    return {
      status: err.status,
      issues: (err.details as { issues?: { path: string; code: string }[] } | undefined)?.issues,
    };
  }
}

async function bodyOutcome(init: RequestInit, schema: z.ZodType = EmptyBody, max?: number) {
  try {
    return { value: await readBody(new Request(URL_BASE, { method: "POST", ...init }), schema, max) };
  } catch (err) {
    if (!isApiError(err)) throw err;
    return { status: err.status, issues: (err.details as { issues?: unknown[] } | undefined)?.issues };
  }
}

describe("readQuery", () => {
  const q = (search: string, schema: z.ZodType = EmptyQuery) =>
    outcome(() => readQuery(new Request(`${URL_BASE}${search}`), schema));

  it("accepts no query on a route that takes none, and refuses any parameter (400 with issues)", () => {
    expect(q("")).toEqual({ value: {} });
    expect(q("?")).toEqual({ value: {} });
    for (const search of ["?bogus=1", "?v=123", "?_=1", "?_rsc=abc", "?bogus", "?__proto__=x", "?constructor=x"]) {
      const r = q(search);
      expect(r, search).toMatchObject({ status: 400 });
      expect((r as { issues?: unknown[] }).issues?.length, search).toBeGreaterThan(0);
    }
  });

  it("validates and coerces declared parameters, refusing unknown ones next to them", () => {
    expect(q("?limit=5&search=abc", ListSessionsQuery)).toEqual({ value: { limit: 5, search: "abc" } });
    expect(q("", ListSessionsQuery)).toEqual({ value: { limit: 100 } });
    expect(q("?limit=0", ListSessionsQuery)).toMatchObject({ status: 400, issues: [{ path: "limit" }] });
    expect(q("?limit=5&debug=1", ListSessionsQuery)).toMatchObject({ status: 400 });
  });

  it("refuses a parameter given more than once", () => {
    expect(q("?limit=1&limit=500", ListSessionsQuery)).toMatchObject({
      status: 400,
      issues: [{ path: "limit", code: "duplicate_parameter" }],
    });
    expect(q("?a=1&a=2&b=1&b=2&a=3")).toMatchObject({ status: 400, issues: [{ path: "a" }, { path: "b" }] });
  });
});

describe("readBody", () => {
  it("lets a body-less route take no body or {}, and refuses anything else with the issues", async () => {
    expect(await bodyOutcome({})).toEqual({ value: {} });
    expect(await bodyOutcome({ body: "" })).toEqual({ value: {} });
    expect(await bodyOutcome({ body: "  \n" })).toEqual({ value: {} });
    expect(await bodyOutcome({ body: "{}" })).toEqual({ value: {} });
    const unknown = await bodyOutcome({ body: JSON.stringify({ bogus: 1 }) });
    expect(unknown).toMatchObject({ status: 400 });
    expect((unknown as { issues?: unknown[] }).issues?.length).toBeGreaterThan(0);
    for (const body of ["null", "[]", "1", '"x"'])
      expect(await bodyOutcome({ body }), body).toMatchObject({ status: 400 });
  });

  it("answers 400 for JSON that does not parse, and 413 past the limit, declared or not", async () => {
    expect(await bodyOutcome({ body: "{" })).toMatchObject({ status: 400 });
    expect(await bodyOutcome({ body: JSON.stringify({ x: "y".repeat(200) }) }, EmptyBody, 100)).toMatchObject({
      status: 413,
    });
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(new TextEncoder().encode("x".repeat(50)));
        c.close();
      },
    });
    expect(await bodyOutcome({ body: stream, duplex: "half" } as RequestInit, EmptyBody, 100)).toMatchObject({
      status: 413,
    });
  });
});

describe("route", () => {
  it("turns a validation failure into the error shape, without a stack", async () => {
    const handler = route(async (req) => {
      readQuery(req, EmptyQuery);
      return Response.json({ ok: true });
    });
    const res = await handler(new Request(`${URL_BASE}?bogus=1`), { params: Promise.resolve({}) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; details?: { issues?: unknown[] } } };
    expect(body.error.code).toBe("bad_request");
    expect(body.error.message).toContain("Invalid query");
    expect(body.error.message).not.toMatch(/\n\s+at /);
    expect(body.error.details?.issues?.length).toBeGreaterThan(0);
    expect((await handler(new Request(URL_BASE), { params: Promise.resolve({}) })).status).toBe(200);
  });
});
