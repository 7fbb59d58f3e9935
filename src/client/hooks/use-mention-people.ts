/**
 * The people `@` offers in a room's composer besides its personas: the
 * room's members (GET /api/rooms/:id/members, read once per room) and
 * whoever is here now (presence), never myself, and never a name a persona
 * already has (a persona's mention asks the persona; the server reads it
 * the same way). Mentioning a person notifies them (docs/people.md).
 */
import { useEffect, useMemo, useState } from "react";
import { api } from "@/client/lib/api";
import type { PresenceUser } from "@/shared/protocol";

export function useMentionPeople(
  roomId: string,
  selfId: string,
  presence: readonly PresenceUser[],
  personaNames: readonly string[]
): string[] {
  const [members, setMembers] = useState<Array<{ id: string; name: string }>>([]);
  useEffect(() => {
    let current = true;
    setMembers([]);
    api
      .roomMembers(roomId)
      .then((list) => current && setMembers(list.members.filter((m) => m.kind !== "api")))
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [roomId]);
  return useMemo(() => {
    const taken = new Set(personaNames.map((n) => n.toLocaleLowerCase()));
    const names: string[] = [];
    for (const person of [...members, ...presence.filter((u) => u.kind !== "api")]) {
      const key = person.name.toLocaleLowerCase();
      if (person.id === selfId || taken.has(key)) continue;
      taken.add(key);
      names.push(person.name);
    }
    return names.sort((a, b) => a.localeCompare(b));
  }, [members, presence, selfId, personaNames]);
}
