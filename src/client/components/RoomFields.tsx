/**
 * The room's settings fields, shared by the new-room dialog and the room
 * settings panel: the same labels and limits in both, the rules in
 * lib/room-settings.ts.
 */

import type { InputHTMLAttributes, ReactNode } from "react";
import { validateModel, validateTemperature } from "@/client/lib/room-settings";
import { MAX_SYSTEM_PROMPT_LENGTH, MAX_TEMPERATURE, MIN_TEMPERATURE } from "@/shared/constants";
import { Button } from "./ui/Button";
import { Field, inputClass } from "./ui/Field";

/** The room's name; `input` adds what a dialog wants of the box (autofocus, a placeholder, limits). */
export function RoomNameField({
  label = "Name",
  value,
  onChange,
  error,
  counter,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> & {
  label?: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
  counter?: ReactNode;
}) {
  return (
    <Field label={label} error={error} counter={counter}>
      {(props) => (
        <input
          {...input}
          {...props}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          className={inputClass}
          autoComplete="off"
        />
      )}
    </Field>
  );
}

interface TextFieldProps {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
}

export function SystemPromptField({
  value,
  onChange,
  placeholder,
  hint,
  rows,
  counter
}: TextFieldProps & { hint: string; rows: number; counter?: string | null }) {
  return (
    <Field label="System prompt" hint={hint} counter={counter}>
      {(props) => (
        <textarea
          {...props}
          value={value}
          maxLength={MAX_SYSTEM_PROMPT_LENGTH}
          onChange={(e) => onChange(e.target.value)}
          rows={rows}
          placeholder={placeholder}
          className={`${inputClass} resize-y leading-6`}
        />
      )}
    </Field>
  );
}

export function ModelField({ value, onChange, placeholder }: TextFieldProps) {
  return (
    <Field label="Model" error={validateModel(value)} hint="Empty: the server default.">
      {(props) => (
        <input
          {...props}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          placeholder={placeholder}
          className={inputClass}
          autoComplete="off"
        />
      )}
    </Field>
  );
}

/**
 * The temperature as a number box (empty: the default). `slider` adds a
 * range control and a Reset button beside it, for the roomier settings panel.
 */
export function TemperatureField({
  value,
  onChange,
  hint,
  slider = false
}: {
  value: string;
  onChange: (value: string) => void;
  hint: string;
  slider?: boolean;
}) {
  const numeric = value.trim() === "" ? null : Number(value);
  return (
    <Field label="Temperature" error={validateTemperature(value)} hint={hint}>
      {(props) => {
        const box = (
          <input
            {...props}
            type="number"
            inputMode="decimal"
            step="0.1"
            min={MIN_TEMPERATURE}
            max={MAX_TEMPERATURE}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            placeholder="Default"
            className={slider ? `${inputClass} w-24` : inputClass}
          />
        );
        if (!slider) return box;
        return (
          <div className="flex items-center gap-3">
            <input
              type="range"
              aria-label="Temperature slider"
              min={MIN_TEMPERATURE}
              max={MAX_TEMPERATURE}
              step={0.1}
              value={numeric ?? 1}
              onChange={(e) => onChange(e.target.value)}
              className={`flex-1 accent-accent ${numeric === null ? "opacity-40" : ""}`}
            />
            {box}
            {value !== "" && (
              <Button size="sm" variant="ghost" onClick={() => onChange("")}>
                Reset
              </Button>
            )}
          </div>
        );
      }}
    </Field>
  );
}
