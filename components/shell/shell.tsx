"use client";
import { usePathname } from "next/navigation";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useTheme } from "@/lib/hooks/use-theme";
import { cx } from "../ui/cx";
import { IconMenu, IconSidebar } from "../ui/icons";
import { useFocusTrap } from "../ui/use-focus-trap";

/** Phones: the same breakpoint as the `phone:` variant in app/globals.css. */
export const PHONE_QUERY = "(max-width: 768px)";

/** Whether a media query matches (false during the server render and the first paint). */
export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(false);
  useEffect(() => {
    const m = matchMedia(query);
    const on = () => setMatches(m.matches);
    on();
    m.addEventListener("change", on);
    return () => m.removeEventListener("change", on);
  }, [query]);
  return matches;
}

interface ShellState {
  /** A phone-sized window: the sidebar is a drawer. */
  phone: boolean;
  /** The sidebar shows: the drawer is open on a phone, or it is not collapsed on a wider window. */
  sidebarShown: boolean;
  toggleSidebar(): void;
  closeDrawer(): void;
}

const ShellContext = createContext<ShellState>({
  phone: false,
  sidebarShown: true,
  toggleSidebar: () => {},
  closeDrawer: () => {},
});

export const useShell = () => useContext(ShellContext);

const COLLAPSED_KEY = "sb-sidebar-collapsed";

/** The header colour of each theme (`--sb-panel` in app/globals.css; the metadata in app/layout.tsx). */
const THEME_COLOR = { dark: "#14171c", light: "#ffffff" } as const;

/**
 * The console's frame: the sidebar and the page. On a phone (≤ 768 px) the sidebar is a drawer
 * opened by the menu button in each page's header (SidebarToggle); it closes on a pick, on Escape
 * and on the backdrop, keeps the focus inside while open and gives it back on close. Wider windows
 * keep the sidebar in place, collapsible with the same button. The frame is as tall as the visual
 * viewport, so the composer stays above the on-screen keyboard.
 */
export function Shell({ sidebar, children }: { sidebar: ReactNode; children: ReactNode }) {
  const phone = useMediaQuery(PHONE_QUERY);
  const [drawer, setDrawer] = useState(false);
  const [collapsed, setCollapsed] = useState(false);
  const pathname = usePathname();
  const drawerRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    try {
      setCollapsed(localStorage.getItem(COLLAPSED_KEY) === "1");
    } catch {
      // private mode
    }
  }, []);

  // A pick in the drawer navigates: the drawer closes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation closes the drawer
  useEffect(() => setDrawer(false), [pathname]);
  useEffect(() => {
    if (!phone) setDrawer(false);
  }, [phone]);

  // The height of what is visible above the on-screen keyboard (iOS does not resize the layout).
  useEffect(() => {
    const vv = window.visualViewport;
    if (!vv) return;
    const set = () => document.documentElement.style.setProperty("--sb-vvh", `${Math.round(vv.height)}px`);
    set();
    vv.addEventListener("resize", set);
    return () => {
      vv.removeEventListener("resize", set);
      document.documentElement.style.removeProperty("--sb-vvh");
    };
  }, []);

  // The browser's and the installed app's bar follow the theme picked in the console, not only the
  // system's colour scheme that the `theme-color` metadata answers.
  const [theme] = useTheme();
  useEffect(() => {
    for (const m of document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]'))
      m.content = THEME_COLOR[theme];
  }, [theme]);

  const closeDrawer = useCallback(() => setDrawer(false), []);
  const toggleSidebar = useCallback(() => {
    if (matchMedia(PHONE_QUERY).matches) {
      setDrawer((d) => !d);
      return;
    }
    setCollapsed((c) => {
      try {
        localStorage.setItem(COLLAPSED_KEY, c ? "0" : "1");
      } catch {
        // private mode
      }
      return !c;
    });
  }, []);

  const drawerOpen = phone && drawer;
  useFocusTrap(drawerRef, { active: drawerOpen, onEscape: closeDrawer });

  const value = useMemo<ShellState>(
    () => ({ phone, sidebarShown: phone ? drawer : !collapsed, toggleSidebar, closeDrawer }),
    [phone, drawer, collapsed, toggleSidebar, closeDrawer],
  );

  return (
    <ShellContext.Provider value={value}>
      <div className="sb-app flex overflow-hidden">
        <a
          href="#main"
          className="sr-only z-[70] rounded-md bg-accent px-3 py-2 text-[13px] font-medium text-accent-fg focus:not-sr-only focus:fixed focus:left-2 focus:top-2"
        >
          Skip to content
        </a>
        {drawerOpen ? (
          <div
            className="fixed inset-0 z-40 bg-black/45 wide:hidden"
            aria-hidden
            onClick={closeDrawer}
            data-testid="drawer-backdrop"
          />
        ) : null}
        <div
          ref={drawerRef}
          id="sb-sidebar"
          data-testid="sidebar-frame"
          data-open={phone ? drawer : !collapsed}
          {...(drawerOpen ? { role: "dialog", "aria-modal": true, "aria-label": "Sessions" } : {})}
          className={cx(
            "h-full shrink-0 phone:fixed phone:inset-y-0 phone:left-0 phone:z-50 phone:shadow-2xl phone:shadow-black/40",
            !drawer && "phone:hidden",
            collapsed && "wide:hidden",
          )}
          style={
            drawerOpen
              ? { paddingTop: "env(safe-area-inset-top)", paddingBottom: "env(safe-area-inset-bottom)" }
              : undefined
          }
        >
          {sidebar}
        </div>
        <main
          id="main"
          tabIndex={-1}
          className="flex min-w-0 flex-1 flex-col outline-none"
          inert={drawerOpen || undefined}
        >
          {children}
        </main>
      </div>
    </ShellContext.Provider>
  );
}

/** The menu button at the start of each page's header: opens the drawer on a phone, collapses the sidebar elsewhere. */
export function SidebarToggle({ className }: { className?: string }) {
  const { phone, sidebarShown, toggleSidebar } = useShell();
  const label = phone ? "Sessions menu" : sidebarShown ? "Hide the sidebar" : "Show the sidebar";
  return (
    <button
      type="button"
      onClick={toggleSidebar}
      aria-label={label}
      title={label}
      aria-controls="sb-sidebar"
      aria-expanded={sidebarShown}
      data-testid="sidebar-toggle"
      className={cx(
        "-ml-1.5 grid size-[40px] shrink-0 place-items-center rounded-md text-muted hover:bg-raised hover:text-fg wide:size-7",
        className,
      )}
    >
      <IconMenu size={18} className="wide:hidden" />
      <IconSidebar size={15} className="phone:hidden" />
    </button>
  );
}
