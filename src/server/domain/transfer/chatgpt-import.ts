/**
 * ChatGPT's data export (`conversations.json`): an array of conversations,
 * each a tree of nodes in `mapping`. We take the branch that ends at
 * `current_node` (what the user last saw), keep user and assistant text,
 * and make one room per conversation. A turn longer than a stored message
 * may be is cut to fit, and named in the room's `truncated` (the import's
 * result carries it to the person importing).
 */
import { MAX_ROOM_NAME_LENGTH } from "@/shared/constants";
import {
  badImport,
  capMessageTexts,
  IMPORTED_AUTHOR_ID,
  type ImportedMessage,
  type ImportedRoom,
  remapIds
} from "./imported-room";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export function isChatGptExport(data: unknown): data is unknown[] {
  return Array.isArray(data) && data.length > 0 && data.every((c) => isObject(c) && "mapping" in c);
}

export function chatGptConversations(data: unknown[]): ImportedRoom[] {
  return data.map((raw, i) => conversation(raw as Json, `conversations[${i}]`));
}

function conversation(raw: Json, where: string): ImportedRoom {
  if (!isObject(raw.mapping)) throw badImport(`${where}.mapping must be an object of nodes.`);
  // Own properties only: a node id like "__proto__" must not reach Object.prototype.
  const source = raw.mapping;
  const mapping: Json = Object.create(null);
  for (const [id, node] of Object.entries(source)) mapping[id] = node;
  const title = typeof raw.title === "string" && raw.title.trim() ? raw.title.trim() : "Imported conversation";
  const name = title.replace(/\p{Cc}/gu, " ").slice(0, MAX_ROOM_NAME_LENGTH);
  let leaf = typeof raw.current_node === "string" ? raw.current_node : undefined;
  if (leaf === undefined) {
    // No current node: the deepest node without children.
    leaf = Object.keys(mapping).find((id) => {
      const node = mapping[id];
      return isObject(node) && (!Array.isArray(node.children) || node.children.length === 0);
    });
  }
  if (leaf === undefined || !isObject(mapping[leaf]))
    throw badImport(`${where}.current_node does not name a node in mapping.`);
  const path: Json[] = [];
  const seen = new Set<string>();
  for (let id: unknown = leaf; typeof id === "string"; ) {
    if (seen.has(id)) throw badImport(`${where}.mapping has a cycle at node "${id}".`);
    seen.add(id);
    const node = mapping[id];
    if (!isObject(node)) throw badImport(`${where}.mapping["${id}"] is missing or not an object.`);
    path.push(node);
    id = node.parent;
  }
  path.reverse();
  const messages: ImportedMessage[] = [];
  path.forEach((node, k) => {
    const m = node.message;
    if (m === null || m === undefined) return;
    const at = `${where}.mapping["${String(node.id ?? k)}"].message`;
    if (!isObject(m) || !isObject(m.author) || typeof m.author.role !== "string") {
      throw badImport(`${at}.author.role must be a string.`);
    }
    const role = m.author.role;
    if (role !== "user" && role !== "assistant") return; // system and tool turns are not conversation
    if (!isObject(m.content)) throw badImport(`${at}.content must be an object.`);
    if (m.content.content_type !== "text") return; // code runs, images: not text we can show
    if (!Array.isArray(m.content.parts)) throw badImport(`${at}.content.parts must be an array.`);
    const text = m.content.parts.filter((p): p is string => typeof p === "string").join("\n");
    if (!text.trim()) return;
    const createdAt = typeof m.create_time === "number" ? Math.round(m.create_time * 1000) : undefined;
    const id = typeof m.id === "string" && m.id ? m.id : `chatgpt-${k}`;
    const model = isObject(m.metadata) && typeof m.metadata.model_slug === "string" ? m.metadata.model_slug : undefined;
    messages.push({
      id,
      role,
      parts: [{ type: "text", text }],
      metadata:
        role === "user"
          ? { author: { id: IMPORTED_AUTHOR_ID, name: "ChatGPT user" }, ...(createdAt ? { createdAt } : {}) }
          : { ...(createdAt ? { createdAt } : {}), ...(model ? { model } : {}) }
    });
  });
  // A turn longer than a message may be is cut, and the import's result says so.
  const capped = capMessageTexts(remapIds(messages));
  return {
    settings: { name, systemPrompt: "", model: null, temperature: null },
    personas: [],
    messages: capped.messages,
    versions: [],
    truncated: capped.truncated
  };
}
