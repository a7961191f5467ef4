/**
 * The console's icons (no icon library): each is its shapes as SVG elements on a 24×24 viewBox with
 * round strokes, drawn as one masked element (icon-base.tsx). Decorative unless given a `title`.
 */
import { makeIcon } from "./icon-base";

export type { Icon, IconProps } from "./icon-base";
export { makeIcon } from "./icon-base";

export const IconTerminal = makeIcon(
  "IconTerminal",
  <>
    <path d="m5 8 4 4-4 4" />
    <path d="M12 17h7" />
  </>,
);
export const IconFile = makeIcon(
  "IconFile",
  <>
    <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
    <path d="M14 3v5h5" />
  </>,
);
export const IconFileText = makeIcon(
  "IconFileText",
  <>
    <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
    <path d="M14 3v5h5" />
    <path d="M9 13h6M9 17h4" />
  </>,
);
export const IconFilePlus = makeIcon(
  "IconFilePlus",
  <>
    <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
    <path d="M14 3v5h5" />
    <path d="M12 11v6M9 14h6" />
  </>,
);
export const IconPencil = makeIcon(
  "IconPencil",
  <>
    <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z" />
    <path d="m14.5 5.5 3 3" />
  </>,
);
export const IconPatch = makeIcon(
  "IconPatch",
  <>
    <path d="M12 3v7M8.5 6.5h7" />
    <path d="M8.5 14h7" />
    <path d="M6 21h12a1 1 0 0 0 1-1V4a1 1 0 0 0-1-1H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1z" />
  </>,
);
export const IconSearch = makeIcon(
  "IconSearch",
  <>
    <circle cx="11" cy="11" r="6.5" />
    <path d="m20 20-4.2-4.2" />
  </>,
);
export const IconFiles = makeIcon(
  "IconFiles",
  <>
    <path d="M15 2H9a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2V6z" />
    <path d="M15 2v4h4" />
    <path d="M4 8v12a2 2 0 0 0 2 2h9" />
  </>,
);
export const IconFolder = makeIcon(
  "IconFolder",
  <path d="M4 20h16a1 1 0 0 0 1-1V8a1 1 0 0 0-1-1h-8l-2-3H4a1 1 0 0 0-1 1v14a1 1 0 0 0 1 1z" />,
);
export const IconGlobe = makeIcon(
  "IconGlobe",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M3 12h18" />
    <path d="M12 3a14 14 0 0 1 0 18a14 14 0 0 1 0-18z" />
  </>,
);
export const IconBot = makeIcon(
  "IconBot",
  <>
    <rect x="4" y="8" width="16" height="12" rx="2" />
    <path d="M12 8V4M9 4h6" />
    <path d="M9 13v2M15 13v2" />
  </>,
);
export const IconListChecks = makeIcon(
  "IconListChecks",
  <>
    <path d="m3 6 2 2 3-3" />
    <path d="m3 16 2 2 3-3" />
    <path d="M12 7h9M12 17h9" />
  </>,
);
export const IconHelp = makeIcon(
  "IconHelp",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6v.6" />
    <path d="M12 17.2v.1" />
  </>,
);
export const IconWrench = makeIcon(
  "IconWrench",
  <path d="M14.7 6.3a4 4 0 0 0 5 5l-.1.1-8.9 8.9a2.1 2.1 0 0 1-3-3l8.9-8.9.1-.1a4 4 0 0 1 5-5l-2.5 2.5.5 2.5 2.5.5" />,
);
export const IconChevronRight = makeIcon("IconChevronRight", <path d="m9 6 6 6-6 6" />);
export const IconChevronDown = makeIcon("IconChevronDown", <path d="m6 9 6 6 6-6" />);
export const IconCheck = makeIcon("IconCheck", <path d="m5 12.5 4.5 4.5L19 7.5" />);
export const IconX = makeIcon("IconX", <path d="M6 6l12 12M18 6 6 18" />);
export const IconAlert = makeIcon(
  "IconAlert",
  <>
    <path d="M10.3 3.9 2.4 17.5A2 2 0 0 0 4.1 20.5h15.8a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" />
    <path d="M12 9v4.5M12 17v.1" />
  </>,
);
export const IconAlertCircle = makeIcon(
  "IconAlertCircle",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7.5v5M12 16.3v.1" />
  </>,
);
export const IconInfo = makeIcon(
  "IconInfo",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 11v5.5M12 7.7v.1" />
  </>,
);
export const IconBan = makeIcon(
  "IconBan",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="m5.6 5.6 12.8 12.8" />
  </>,
);
export const IconClock = makeIcon(
  "IconClock",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 7v5l3 2" />
  </>,
);
export const IconStop = makeIcon("IconStop", <rect x="6" y="6" width="12" height="12" rx="2" />);
export const IconSparkle = makeIcon(
  "IconSparkle",
  <path d="M12 3c.5 4.5 2.5 6.5 7 7-4.5.5-6.5 2.5-7 7-.5-4.5-2.5-6.5-7-7 4.5-.5 6.5-2.5 7-7z" />,
);
export const IconBrain = makeIcon(
  "IconBrain",
  <>
    <path d="M9 4a3 3 0 0 0-3 3v.2A3 3 0 0 0 4 10a3 3 0 0 0 1 2.2A3 3 0 0 0 6 18a3 3 0 0 0 6 1V5a3 3 0 0 0-3-1z" />
    <path d="M15 4a3 3 0 0 1 3 3v.2A3 3 0 0 1 20 10a3 3 0 0 1-1 2.2A3 3 0 0 1 18 18a3 3 0 0 1-6 1" />
  </>,
);
export const IconPaperclip = makeIcon(
  "IconPaperclip",
  <path d="m20 11.5-8.2 8.2a5 5 0 0 1-7.1-7.1l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4l7.8-7.8" />,
);
export const IconImage = makeIcon(
  "IconImage",
  <>
    <rect x="3" y="4" width="18" height="16" rx="2" />
    <circle cx="9" cy="10" r="1.8" />
    <path d="m21 16-5-5-9 9" />
  </>,
);
export const IconCopy = makeIcon(
  "IconCopy",
  <>
    <rect x="8" y="8" width="12" height="12" rx="2" />
    <path d="M16 8V6a2 2 0 0 0-2-2H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h2" />
  </>,
);
export const IconExternal = makeIcon(
  "IconExternal",
  <>
    <path d="M14 4h6v6" />
    <path d="M20 4 11 13" />
    <path d="M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" />
  </>,
);
export const IconSun = makeIcon(
  "IconSun",
  <>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </>,
);
export const IconBell = makeIcon(
  "IconBell",
  <>
    <path d="M6.5 16.5V11a5.5 5.5 0 0 1 11 0v5.5l1.5 1.5H5z" />
    <path d="M10 20.5a2.2 2.2 0 0 0 4 0" />
  </>,
);
export const IconBellOff = makeIcon(
  "IconBellOff",
  <>
    <path d="M6.5 16.5V11a5.5 5.5 0 0 1 11 0v5.5l1.5 1.5H5z" />
    <path d="M10 20.5a2.2 2.2 0 0 0 4 0" />
    <path d="M4 4l16 16" />
  </>,
);
export const IconMoon = makeIcon("IconMoon", <path d="M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z" />);
export const IconCircle = makeIcon("IconCircle", <circle cx="12" cy="12" r="8" />);
export const IconCircleDot = makeIcon(
  "IconCircleDot",
  <>
    <circle cx="12" cy="12" r="8" />
    <circle cx="12" cy="12" r="3" fill="currentColor" stroke="none" />
  </>,
);
export const IconCircleCheck = makeIcon(
  "IconCircleCheck",
  <>
    <circle cx="12" cy="12" r="8.5" />
    <path d="m8.5 12.2 2.4 2.4 4.6-4.8" />
  </>,
);
export const IconCircleX = makeIcon(
  "IconCircleX",
  <>
    <circle cx="12" cy="12" r="8.5" />
    <path d="m9.5 9.5 5 5M14.5 9.5l-5 5" />
  </>,
);
export const IconShield = makeIcon("IconShield", <path d="M12 3 5 6v5.5c0 4.5 3 8 7 9.5 4-1.5 7-5 7-9.5V6z" />);
export const IconLogOut = makeIcon(
  "IconLogOut",
  <>
    <path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4" />
    <path d="M16 17l5-5-5-5M21 12H9" />
  </>,
);
export const IconKey = makeIcon(
  "IconKey",
  <>
    <circle cx="7.5" cy="15.5" r="4.5" />
    <path d="M10.7 12.3L21 2M17 6l3 3M14.5 8.5l2.5 2.5" />
  </>,
);
export const IconBranch = makeIcon(
  "IconBranch",
  <>
    <circle cx="6" cy="5.5" r="2" />
    <circle cx="6" cy="18.5" r="2" />
    <circle cx="18" cy="8" r="2" />
    <path d="M6 7.5v9" />
    <path d="M18 10c0 4-6 3.5-11 7" />
  </>,
);
export const IconCommit = makeIcon(
  "IconCommit",
  <>
    <circle cx="12" cy="12" r="3.5" />
    <path d="M3 12h5.5M15.5 12H21" />
  </>,
);
export const IconUndo = makeIcon(
  "IconUndo",
  <>
    <path d="M9 14 4 9l5-5" />
    <path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11" />
  </>,
);
export const IconMore = makeIcon(
  "IconMore",
  <>
    <circle cx="5.5" cy="12" r="1" fill="currentColor" />
    <circle cx="12" cy="12" r="1" fill="currentColor" />
    <circle cx="18.5" cy="12" r="1" fill="currentColor" />
  </>,
);
export const IconDownload = makeIcon(
  "IconDownload",
  <>
    <path d="M12 4v11" />
    <path d="m7 10 5 5 5-5" />
    <path d="M5 20h14" />
  </>,
);
export const IconEye = makeIcon(
  "IconEye",
  <>
    <path d="M2.5 12S6 5.5 12 5.5 21.5 12 21.5 12 18 18.5 12 18.5 2.5 12 2.5 12z" />
    <circle cx="12" cy="12" r="2.75" />
  </>,
);
export const IconLink = makeIcon(
  "IconLink",
  <>
    <path d="M10 14a4.5 4.5 0 0 0 6.4 0l3-3a4.5 4.5 0 0 0-6.4-6.4l-1.1 1.1" />
    <path d="M14 10a4.5 4.5 0 0 0-6.4 0l-3 3a4.5 4.5 0 0 0 6.4 6.4l1.1-1.1" />
  </>,
);
export const IconTrash = makeIcon(
  "IconTrash",
  <>
    <path d="M4 7h16" />
    <path d="M9 7V4h6v3" />
    <path d="M6 7l1 13h10l1-13" />
  </>,
);
export const IconDiff = makeIcon(
  "IconDiff",
  <>
    <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
    <path d="M12 9v6M9 12h6" />
    <path d="M9 18h6" />
  </>,
);
export const IconFold = makeIcon(
  "IconFold",
  <>
    <path d="M4 12h16" />
    <path d="m9 4 3 3 3-3" />
    <path d="m9 20 3-3 3 3" />
  </>,
);
export const IconColumns = makeIcon(
  "IconColumns",
  <>
    <rect x="3.5" y="4.5" width="17" height="15" rx="1.5" />
    <path d="M12 4.5v15" />
  </>,
);
export const IconRows = makeIcon(
  "IconRows",
  <>
    <rect x="3.5" y="4.5" width="17" height="15" rx="1.5" />
    <path d="M3.5 12h17" />
  </>,
);

export const IconMenu = makeIcon(
  "IconMenu",
  <>
    <path d="M4 7h16" />
    <path d="M4 12h16" />
    <path d="M4 17h16" />
  </>,
);

export const IconSidebar = makeIcon(
  "IconSidebar",
  <>
    <rect x="3.5" y="4.5" width="17" height="15" rx="2" />
    <path d="M9.5 4.5v15" />
  </>,
);

export const IconKeyboard = makeIcon(
  "IconKeyboard",
  <>
    <rect x="2.5" y="6" width="19" height="12" rx="2" />
    <path d="M6.5 10h.01M10 10h.01M14 10h.01M17.5 10h.01M7.5 14h9" />
  </>,
);
