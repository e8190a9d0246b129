// Structured logging (winston). JSON lines by default, for log pipelines; `text` for people.
// Child loggers carry controller/namespace/name/reconcileID. Log keys and reasons at info, never
// whole objects: they are large and may hold secrets from pod templates.

import winston from 'winston';

export type Logger = winston.Logger;
export type LogFormat = 'json' | 'text';
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go (tests capture them); default stderr, so stdout stays free for command output. */
  stream?: NodeJS.WritableStream;
  silent?: boolean;
}

const textFormat = winston.format.printf((info) => {
  const { level, message, timestamp, ...fields } = info as Record<string, unknown>;
  const extra = Object.entries(fields)
    .filter(([k]) => typeof k === 'string')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`)
    .join(' ');
  return `${timestamp} ${String(level).toUpperCase().padEnd(5)} ${message}${extra ? ` ${extra}` : ''}`;
});

export function createLogger(opts: LoggerOptions = {}): Logger {
  const format =
    opts.format === 'text'
      ? winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: false }), textFormat)
      : winston.format.combine(
          winston.format.timestamp(),
          winston.format.errors({ stack: false }),
          winston.format.json(),
        );
  const transport = opts.stream
    ? new winston.transports.Stream({ stream: opts.stream })
    : new winston.transports.Console({ stderrLevels: [...LOG_LEVELS] });
  return winston.createLogger({ level: opts.level ?? 'info', format, transports: [transport], silent: opts.silent });
}

/** A logger that writes nothing (tests, embedding). */
export function silentLogger(): Logger {
  return createLogger({ silent: true });
}

/** The fields a reconcile logs with. */
export function reconcileLogger(base: Logger, controller: string, key: string, reconcileID: string): Logger {
  const slash = key.indexOf('/');
  const namespace = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  return base.child({ controller, namespace, name, reconcileID });
}

export function isLogLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s);
}
