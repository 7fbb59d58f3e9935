/** The room's one polite status region (see use-room-announcer.ts). */
export function LiveAnnouncer({ message }: { message: string }) {
  return (
    <div role="status" aria-live="polite" aria-atomic="true" aria-label="Room announcements" className="sr-only">
      {message}
    </div>
  );
}
