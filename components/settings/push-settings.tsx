"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, useSyncExternalStore } from "react";
import { relativeTime } from "@/lib/format";
import type { PushDevice } from "@/lib/push-api";
import {
  listDevices,
  pushSupported,
  removeDevice,
  setTurns,
  subscribeThisDevice,
  testDevice,
  thisDeviceId,
} from "@/lib/push/client";
import { Spinner } from "../ui/spinner";

const noop = () => () => {};
const BUTTON =
  "rounded border border-border px-2.5 py-1 text-[12px] text-fg hover:bg-raised disabled:cursor-not-allowed disabled:opacity-50";

/**
 * Settings → Push (docs/push.md): "Notify this device", the devices pushes go to, a test push, the
 * per-device "finished turns" toggle, and remove. Loaded on demand with the push client.
 */
export default function PushSettings() {
  const qc = useQueryClient();
  const supported = useSyncExternalStore(noop, pushSupported, () => false);
  const mine = useSyncExternalStore(noop, thisDeviceId, () => null);
  const [note, setNote] = useState<{ id?: string; text: string; ok: boolean } | null>(null);
  const q = useQuery({ queryKey: ["push-devices"], queryFn: listDevices });
  const refresh = () => qc.invalidateQueries({ queryKey: ["push-devices"] });
  const fail = (err: unknown, id?: string) =>
    setNote({ ...(id ? { id } : {}), ok: false, text: err instanceof Error ? err.message : String(err) });
  const subscribe = useMutation({
    mutationFn: subscribeThisDevice,
    onSuccess: () => {
      setNote({ ok: true, text: "This device is notified from now on." });
      void refresh();
    },
    onError: (e) => fail(e),
  });
  const remove = useMutation({ mutationFn: removeDevice, onSettled: refresh, onError: (e, id) => fail(e, id) });
  const turns = useMutation({
    mutationFn: (v: { id: string; turns: boolean }) => setTurns(v.id, v.turns),
    onSettled: refresh,
    onError: (e, v) => fail(e, v.id),
  });
  const test = useMutation({
    mutationFn: testDevice,
    onSuccess: (r, id) => setNote({ id, ok: r.ok, text: r.ok ? "Test push sent." : r.message }),
    onError: (e, id) => fail(e, id),
    onSettled: refresh,
  });
  const devices = q.data ?? [];
  const subscribed = !!mine && devices.some((d) => d.id === mine);

  return (
    <div className="rounded-lg border border-border bg-panel" data-testid="push-settings">
      <div className="flex flex-wrap items-center gap-3 border-b border-border px-4 py-3 text-[12.5px]">
        <span className="min-w-0 flex-1 text-muted">
          {supported
            ? subscribed
              ? "This device is notified."
              : "Get a notification on this device when an agent asks, even with the tab closed."
            : "This browser cannot receive pushes here (iOS: add the console to the home screen first; an http: address other than localhost cannot use them)."}
        </span>
        <button
          type="button"
          className={BUTTON}
          disabled={!supported || subscribe.isPending}
          onClick={() => subscribe.mutate()}
          data-testid="push-subscribe"
        >
          {subscribe.isPending ? <Spinner size={11} /> : subscribed ? "Subscribe again" : "Notify this device"}
        </button>
      </div>
      {note && !note.id ? (
        <p className={`px-4 py-2 text-[12.5px] ${note.ok ? "text-ok" : "text-err"}`} role="status">
          {note.text}
        </p>
      ) : null}
      <ul className="divide-y divide-border" data-testid="push-devices">
        {devices.map((d) => (
          <DeviceRow
            key={d.id}
            device={d}
            mine={d.id === mine}
            note={note?.id === d.id ? note : null}
            onTest={() => test.mutate(d.id)}
            onRemove={() => remove.mutate(d.id)}
            onTurns={(v) => turns.mutate({ id: d.id, turns: v })}
            busy={(test.isPending && test.variables === d.id) || (remove.isPending && remove.variables === d.id)}
          />
        ))}
        {q.isFetched && devices.length === 0 ? (
          <li className="px-4 py-3 text-[13px] text-faint">No device is notified.</li>
        ) : null}
      </ul>
    </div>
  );
}

function DeviceRow(props: {
  device: PushDevice;
  mine: boolean;
  note: { text: string; ok: boolean } | null;
  busy: boolean;
  onTest(): void;
  onRemove(): void;
  onTurns(v: boolean): void;
}) {
  const d = props.device;
  return (
    <li className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2 text-[12.5px]" data-testid="push-device">
      <span className="min-w-0 flex-1">
        <span className="font-medium text-fg">{d.label}</span>
        {props.mine ? <span className="ml-1.5 text-accent">(this device)</span> : null}
        <span className="block truncate text-faint">
          {d.service} · added {relativeTime(d.createdAt)}
          {d.owner ? ` by ${d.owner.name || d.owner.id}` : ""}
          {d.lastSentAt ? ` · last push ${relativeTime(d.lastSentAt)}` : ""}
          {d.lastError ? <span className="text-err"> · {d.lastError}</span> : null}
        </span>
        {props.note ? (
          <span className={`block ${props.note.ok ? "text-ok" : "text-err"}`} role="status">
            {props.note.text}
          </span>
        ) : null}
      </span>
      <label className="flex items-center gap-1.5 text-muted">
        <input
          type="checkbox"
          checked={d.turns}
          onChange={(e) => props.onTurns(e.target.checked)}
          data-testid="push-turns"
        />
        Finished turns
      </label>
      <button type="button" className={BUTTON} onClick={props.onTest} disabled={props.busy} data-testid="push-test">
        Test
      </button>
      <button type="button" className={BUTTON} onClick={props.onRemove} disabled={props.busy} data-testid="push-remove">
        Remove
      </button>
    </li>
  );
}
