/**
 * When two names look alike, and which names no member may take. People and
 * personas are told apart by name in the room and in the model's context, so
 * "Аda" (a Cyrillic А) beside "Ada", or a member called "Assistant", could
 * pass for someone they are not. Shared: the server refuses such names and
 * the browser can say why before it asks.
 *
 * The skeleton follows Unicode TR39 (section 4, "Confusable Detection"):
 * - covered: compatibility forms folded (NFKC, so fullwidth "Ａ" and "＠"
 *   are "A" and "@"); default-ignorable code points (zero-width joiners,
 *   variation selectors, soft hyphens) removed; combining marks removed after
 *   NFD, so accents do not tell names apart; the Cyrillic and Greek letters
 *   drawn like Latin ones, and 0 and 1 drawn like o and l, mapped to them.
 * - changed: names compare case-insensitively, so the skeleton folds case
 *   first. TR39 maps a capital I to l; after folding that would merge every
 *   i with l ("Kai" with "Kal", and the member name "Al" with "AI"), so i and
 *   l stay apart, and "KaI" beside "Kal" is not caught.
 * - not covered: TR39's whole confusables table (thousands of pairs across
 *   scripts: Armenian, Cherokee, mathematical letters NFKC does not fold...)
 *   and its mixed-script rules. This is a short table of the look-alikes that
 *   common keyboards offer, not a dependency of a megabyte.
 */

const LOOKALIKES: Readonly<Record<string, string>> = {
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
  ү: "y",
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
  ϲ: "c",
  ϳ: "j",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  // Latin letters without a dot or with a hook that read as plain ones
  ı: "i",
  ɡ: "g",
  // Digits and signs drawn like letters
  "0": "o",
  "1": "l",
  "|": "l"
};

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const MARK = /\p{M}/gu;

/** The form two names share when they look alike (see the file comment). */
export function nameSkeleton(name: string): string {
  const folded = name.normalize("NFKC").replace(IGNORABLE, "").toLowerCase().normalize("NFD").replace(MARK, "");
  let out = "";
  for (const ch of folded) out += LOOKALIKES[ch] ?? ch;
  return out;
}

export function looksAlike(a: string, b: string): boolean {
  return nameSkeleton(a) === nameSkeleton(b);
}

/**
 * What the room calls those that are not people: the assistant (and the
 * words people use for it) and the model's system role. A member with one of
 * these names could pass for them in the room and in answers.
 */
const MEMBER_RESERVED = ["Assistant", "AI", "System"];
const MEMBER_RESERVED_SKELETONS = new Map(MEMBER_RESERVED.map((name) => [nameSkeleton(name), name]));

/**
 * Why a person may not take `name`, or null when they may: it looks like a
 * reserved name, or it starts with "@", which marks a persona (@Ada).
 */
export function memberNameClash(name: string): string | null {
  const skeleton = nameSkeleton(name);
  if (skeleton.startsWith("@")) return "must not start with @: that marks an AI persona";
  const reserved = MEMBER_RESERVED_SKELETONS.get(skeleton);
  return reserved ? `"${name}" reads as "${reserved}", which is reserved for the room's AI` : null;
}
