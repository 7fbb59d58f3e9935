/**
 * An open room's conversation: find in room, the transcript (live, or the
 * page around a linked message), the outbox and the composer (with the
 * reply being written, hooks/use-reply-draft.ts). Suspends
 * until the newest page of history has loaded (hooks/use-chat-room.ts).
 */

import { type ReactNode, type RefObject, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useAppUI } from "@/client/app-ui";
import { useAuth } from "@/client/components/AuthGate";
import { Composer, type ComposerHandle } from "@/client/components/Composer";
import { CatchUpPanel } from "@/client/components/catch-up/CatchUpPanel";
import { QueueChip } from "@/client/components/composer/QueueChip";
import { ReplyDraftChip } from "@/client/components/composer/ReplyDraft";
import { FindInRoom } from "@/client/components/FindInRoom";
import { JumpView } from "@/client/components/JumpView";
import { LiveAnnouncer } from "@/client/components/LiveAnnouncer";
import { MessageList } from "@/client/components/MessageList";
import { NewMessagesBar } from "@/client/components/NewMessages";
import { OutboxTray } from "@/client/components/OutboxTray";
import { RoomGone } from "@/client/components/RoomStates";
import { useRoomSearchParams } from "@/client/components/room/room-route";
import { ForkButton, useFork } from "@/client/components/Transfer";
import { ReactingContext } from "@/client/components/transcript/MessageReactions";
import { MessageLookupContext, type ReplyActions, ReplyActionsContext } from "@/client/components/transcript/ReplyChip";
import type { MessageListHandle } from "@/client/components/transcript/transcript-handle";
import { anyDialogOpen } from "@/client/components/ui/Dialog";
import { type RoomChat, useRoomChat } from "@/client/hooks/use-chat-room";
import { type FileUploads, useFileUploads } from "@/client/hooks/use-file-uploads";
import { useMediaQuery } from "@/client/hooks/use-media-query";
import { useMentionPeople } from "@/client/hooks/use-mention-people";
import { useOutbox } from "@/client/hooks/use-outbox";
import { useTypingSignal } from "@/client/hooks/use-presence";
import { type ReplyDraft, useReplyDraft } from "@/client/hooks/use-reply-draft";
import { useRoomAnnouncer } from "@/client/hooks/use-room-announcer";
import type { ConnectionStatus } from "@/client/hooks/use-room-list";
import type { RoomSocket } from "@/client/hooks/use-room-socket";
import { useStableCallback } from "@/client/hooks/use-stable-callback";
import { useUnread } from "@/client/hooks/use-unread";
import { answeringQuestionOf } from "@/client/lib/answering";
import { authorOf } from "@/shared/identity";
import { PANEL_PREFIX } from "@/shared/personas";

function offlineReason(status: ConnectionStatus): string | null {
  if (status === "open") return null;
  if (status === "connecting") return "Connecting to the room… You can write now; messages are sent once connected.";
  if (status === "reconnecting")
    return "Connection lost. Reconnecting… Messages you send wait and go out on reconnect.";
  return "Disconnected. Messages you send wait here and go out once connected.";
}

/** The live transcript with its "N new messages" bar, or the page around a linked message (`?m=`). */
function RoomTranscript({
  chat,
  socket,
  roomId,
  roomName,
  finding,
  stickSignal,
  transcriptRef,
  onFork
}: {
  chat: RoomChat;
  socket: RoomSocket;
  roomId: string;
  roomName: string;
  finding: number;
  stickSignal: number;
  transcriptRef: RefObject<MessageListHandle | null>;
  onFork: (messageId: string) => void;
}) {
  const [params, setParams] = useRoomSearchParams();
  const jumpTo = params.get("m");
  const connected = socket.status === "open";
  /** Catch me up, asked for from the new-messages bar: from the first message that was new. */
  const [catchUpFrom, setCatchUpFrom] = useState<string | null>(null);
  const unread = useUnread({
    roomId,
    messages: chat.messages,
    selfId: socket.selfId,
    connected,
    send: (data) => socket.agent.send(data)
  });
  return jumpTo ? (
    <JumpView
      roomId={roomId}
      messageId={jumpTo}
      onLeave={() => setParams({}, { replace: true })}
      keepFocus={finding > 0}
      openVersion={Number(params.get("v")) || undefined}
      renderActions={(m) => (
        <div className="flex justify-end px-6 pb-1">
          <ForkButton onFork={() => onFork(m.id)} />
        </div>
      )}
    />
  ) : (
    <div className="relative flex min-h-0 flex-1 flex-col">
      {catchUpFrom && <CatchUpPanel roomId={roomId} from={catchUpFrom} onClose={() => setCatchUpFrom(null)} />}
      <MessageList
        ref={transcriptRef}
        chat={chat}
        roomName={roomName}
        selfId={socket.selfId}
        connected={connected}
        stickSignal={stickSignal}
        onFork={onFork}
        newMessages={unread.start}
      />
      {unread.showBar && unread.start && (
        <NewMessagesBar
          start={unread.start}
          transcript={transcriptRef}
          onJumpFar={(id) => {
            unread.dismissBar();
            setParams({ m: id });
          }}
          onDismiss={unread.dismissBar}
          onCatchUp={() => setCatchUpFrom(unread.start?.messageId ?? null)}
        />
      )}
    </div>
  );
}

/** The composer, wired to the room: typing signals, @-mentions of its personas, Stop for anyone's answer. */
function RoomComposer({
  socket,
  chat,
  roomId,
  roomName,
  composerRef,
  onSend,
  uploads,
  reply
}: {
  socket: RoomSocket;
  chat: RoomChat;
  roomId: string;
  roomName: string;
  composerRef: RefObject<ComposerHandle | null>;
  onSend: (text: string) => void;
  uploads: FileUploads;
  /** The reply being written, shown above the composer. */
  reply: ReplyDraft;
}) {
  const ui = useAppUI();
  const isDesktop = useMediaQuery("(min-width: 768px) and (pointer: fine)");
  const { notifyTyping, stopTyping } = useTypingSignal(socket.agent, socket.status === "open");
  // Shift+Esc anywhere comes back here (App.tsx).
  useEffect(() => {
    ui.composerFocusRef.current = () => composerRef.current?.focus();
    return () => {
      ui.composerFocusRef.current = null;
    };
  }, [ui.composerFocusRef, composerRef]);
  // Escape cancels the reply being written, else stops the answer to your own question (Stop stops anyone's).
  const messagesRef = useRef(chat.messages);
  messagesRef.current = chat.messages;
  const { busy, stop } = chat;
  const replying = reply.quote !== null;
  const cancelReply = reply.cancel;
  useEffect(() => {
    if (!busy && !replying) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || event.shiftKey || event.altKey) return;
      if (event.ctrlKey || event.metaKey || anyDialogOpen() || document.querySelector(":popover-open")) return;
      if (!replying && !answeringQuestionOf(messagesRef.current, socket.selfId)) return;
      event.preventDefault();
      if (replying) cancelReply();
      else stop();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [busy, stop, socket.selfId, replying, cancelReply]);
  const personas = socket.state?.personas;
  const personaNames = useMemo(() => (personas ?? []).map((p) => p.name), [personas]);
  // People as well as personas: a person's mention notifies them (hooks/use-mention-people.ts).
  const people = useMentionPeople(roomId, socket.selfId, socket.presence, personaNames);
  const mentionNames = useMemo(() => [...personaNames, ...people], [personaNames, people]);
  const typingUsers = useMemo(
    () => socket.presence.filter((u) => u.typing && u.id !== socket.selfId),
    [socket.presence, socket.selfId]
  );
  // Stable, so the memoised composer skips the renders of streamed chunks.
  const askPanel = useStableCallback((text: string) => onSend(`${PANEL_PREFIX}${text}`));
  const stopAnswer = useStableCallback(() => {
    chat.stop();
    // The Stop button is about to go: keep focus where the person works.
    composerRef.current?.focus();
  });
  return (
    <>
      {reply.quote && (
        <ReplyDraftChip
          quote={reply.quote}
          onCancel={() => {
            reply.cancel();
            composerRef.current?.focus();
          }}
        />
      )}
      <Composer
        ref={composerRef}
        roomId={roomId}
        roomName={roomName}
        offlineReason={offlineReason(socket.status)}
        onReconnect={socket.status === "open" || socket.status === "connecting" ? undefined : socket.reconnectNow}
        connecting={socket.status === "connecting" || socket.status === "reconnecting"}
        busy={chat.busy}
        typingUsers={typingUsers}
        onSend={onSend}
        uploads={uploads}
        onAskPanel={personas?.length ? askPanel : undefined}
        onStop={stopAnswer}
        onTyping={notifyTyping}
        onStopTyping={stopTyping}
        autoFocus={isDesktop}
        mentionNames={mentionNames}
      />
    </>
  );
}

/** What a room's messages read from around them: reactions, the transcript's lookup, replies (task runs: tasks/TaskRunsProvider.tsx). */
function RoomContexts({
  chat,
  socket,
  roomId,
  replyActions,
  children
}: {
  chat: RoomChat;
  socket: RoomSocket;
  roomId: string;
  replyActions: ReplyActions;
  children: ReactNode;
}) {
  const reacting = useMemo(() => ({ roomId, selfId: socket.selfId }), [roomId, socket.selfId]);
  // Stable, so a streamed token re-renders no "Replying to" chip (transcript/ReplyChip.tsx).
  const messagesRef = useRef(chat.messages);
  messagesRef.current = chat.messages;
  const lookup = useCallback((id: string) => {
    const messages = messagesRef.current;
    const at = messages.findIndex((m) => m.id === id);
    return at < 0 ? undefined : { message: messages[at], previous: messages[at - 1] };
  }, []);
  return (
    <ReactingContext.Provider value={reacting}>
      <MessageLookupContext.Provider value={lookup}>
        <ReplyActionsContext.Provider value={replyActions}>{children}</ReplyActionsContext.Provider>
      </MessageLookupContext.Provider>
    </ReactingContext.Provider>
  );
}

export function RoomConversation({
  socket,
  roomId,
  roomName,
  finding,
  onCloseFind
}: {
  socket: RoomSocket;
  roomId: string;
  roomName: string;
  /** Find in room is open; bumped each time it is asked for (0: closed). */
  finding: number;
  onCloseFind: () => void;
}) {
  const chat = useRoomChat(socket, roomId, undefined, { warm: true });
  const composerRef = useRef<ComposerHandle>(null);
  const transcriptRef = useRef<MessageListHandle>(null);
  const reply = useReplyDraft(roomId, transcriptRef, composerRef);
  const [stickSignal, setStickSignal] = useState(0);
  const [params, setParams] = useRoomSearchParams();
  const jumpTo = params.get("m");
  const leaveJump = () => setParams({}, { replace: true });
  const { user } = useAuth();
  const forking = useFork(roomId);
  const outbox = useOutbox(roomId, socket, chat.appendStored);
  const uploads = useFileUploads(roomId);
  const announcement = useRoomAnnouncer({
    messages: chat.messages,
    busy: chat.busy,
    selfId: socket.selfId,
    errors: [chat.serverError, chat.actionError, chat.olderError, chat.error?.message]
  });

  /** Sends (through the outbox) and follows the conversation to the bottom. */
  const sendText = useStableCallback((text: string) => {
    if (jumpTo) leaveJump();
    outbox.enqueue(text, authorOf(user), uploads.take(), reply.quote ?? undefined);
    reply.cancel();
    setStickSignal((n) => n + 1);
  });

  if (chat.initialError?.status === 404) return <RoomGone kind="not-found" />;

  return (
    <RoomContexts chat={chat} socket={socket} roomId={roomId} replyActions={reply.actions}>
      {forking.error && (
        <p
          role="alert"
          className="shrink-0 border-b border-danger-line bg-danger-bg px-4 py-1.5 text-xs text-danger-fg"
        >
          Could not fork: {forking.error}
        </p>
      )}
      {finding > 0 && (
        <FindInRoom
          roomId={roomId}
          focusSignal={finding}
          onShow={(id) => setParams({ m: id }, { replace: true })}
          onClose={() => {
            onCloseFind();
            if (jumpTo) leaveJump();
            composerRef.current?.focus();
          }}
        />
      )}
      <RoomTranscript
        chat={chat}
        socket={socket}
        roomId={roomId}
        roomName={roomName}
        finding={finding}
        stickSignal={stickSignal}
        transcriptRef={transcriptRef}
        onFork={(id) => void forking.fork(id)}
      />
      <LiveAnnouncer message={announcement} />
      <QueueChip roomId={roomId} messages={chat.messages} busy={chat.busy} selfId={socket.selfId} />
      <OutboxTray outbox={outbox} online={socket.status === "open"} />
      <RoomComposer
        socket={socket}
        chat={chat}
        roomId={roomId}
        roomName={roomName}
        composerRef={composerRef}
        onSend={sendText}
        uploads={uploads}
        reply={reply}
      />
    </RoomContexts>
  );
}
