/**
 * REST for a room's personas, mounted under /rooms/:id/personas. Validates
 * with the shared zod schemas and calls the overseer, which gates the room
 * and hands the call to it.
 */
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { unwrap } from "@/server/app-error";
import { type AppEnv, requireCaller } from "@/server/http/access";
import { rejectInvalid } from "@/server/http/validation";
import { CreatePersonaBody, UpdatePersonaBody } from "@/shared/personas";
import { overseerFor } from "./overseer-stub";

/** The room id from the parent route (/rooms/:id/personas). */
const roomId = (c: Context<AppEnv>) => c.req.param("id") ?? "";

export const personaRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const overseer = await overseerFor(c);
    return c.json({ personas: unwrap(await overseer.listPersonas(roomId(c), requireCaller(c))) });
  })
  .post("/", zValidator("json", CreatePersonaBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    const id = roomId(c);
    const persona = unwrap(await overseer.createPersona(id, c.req.valid("json"), requireCaller(c)));
    return c.json(persona, 201, { Location: `/api/rooms/${id}/personas/${persona.id}` });
  })
  .patch("/:personaId", zValidator("json", UpdatePersonaBody, rejectInvalid("bad_request:body")), async (c) => {
    const overseer = await overseerFor(c);
    return c.json(
      unwrap(await overseer.updatePersona(roomId(c), c.req.param("personaId"), c.req.valid("json"), requireCaller(c)))
    );
  })
  .delete("/:personaId", async (c) => {
    const overseer = await overseerFor(c);
    unwrap(await overseer.deletePersona(roomId(c), c.req.param("personaId"), requireCaller(c)));
    return c.body(null, 204);
  });
