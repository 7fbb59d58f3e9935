/**
 * Which persona names a room refuses: names that read as the assistant or
 * the model's own roles, and names that look like a persona already in the
 * room. Persona turns are labelled by name in other personas' prompts
 * (persona-context.ts), so "Аda" (a Cyrillic А) beside "Ada", or a persona
 * called "Assistant", could pass for someone it is not.
 *
 * "Looks like" is a skeleton in the spirit of Unicode TR39: compatibility
 * forms folded (NFKC), case and accents dropped, and the Cyrillic and Greek
 * letters that are drawn like Latin ones (and 0/1 like o/l) mapped to them.
 * It is a short table of the look-alikes a keyboard offers, not TR39's
 * whole confusables list.
 */

const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  з: "3",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  ԁ: "d",
  һ: "h",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  // Greek
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  // Digits and letters drawn alike
  "0": "o",
  "1": "l"
};

/** Names no persona may take (compared by skeleton): the assistant and the model's roles. */
const RESERVED = ["assistant", "system", "user", "tool", "model"];

export function nameSkeleton(name: string): string {
  const folded = name.normalize("NFKC").toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
  let out = "";
  for (const ch of folded) out += LOOKALIKES[ch] ?? ch;
  return out;
}

const RESERVED_SKELETONS = new Set(RESERVED.map(nameSkeleton));

export function isReservedName(name: string): boolean {
  return RESERVED_SKELETONS.has(nameSkeleton(name));
}

export function looksAlike(a: string, b: string): boolean {
  return nameSkeleton(a) === nameSkeleton(b);
}
