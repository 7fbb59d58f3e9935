import { AlertTriangle } from "lucide-react";
import { Component, type ErrorInfo, type ReactNode } from "react";
import { Alert } from "./ui/Alert";

interface Props {
  messageId: string;
  /** A new value (the message changed) lets a failed row try again. */
  resetKey: unknown;
  children: ReactNode;
}

/**
 * One per message: a stored message the UI cannot render (whatever the
 * server once let through) shows a notice in its place instead of
 * blanking the room for everyone who opens it.
 */
export class MessageErrorBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.warn(`[rooms] message ${this.props.messageId} cannot be shown:`, error, info.componentStack);
  }

  componentDidUpdate(previous: Props) {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false });
  }

  render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="px-4 py-2 sm:px-6" data-message-id={this.props.messageId}>
        <Alert
          tone="warning"
          role="note"
          className="ml-11 items-center"
          icon={<AlertTriangle className="size-4 shrink-0" aria-hidden="true" />}
        >
          This message cannot be shown.
        </Alert>
      </div>
    );
  }
}
