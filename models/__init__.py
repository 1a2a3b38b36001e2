"""Beanie documents, one module per domain. DOCUMENT_MODELS is what init_beanie registers."""
from models.auth import ApiKey, Organisation
from models.billing import Payment, Subscription, Wallet
from models.channels import ChannelAccount
from models.chats import ChatMessage, Conversation
from models.contacts import Contact, ContactCounter, ContactTermCount, CustomField, Tag
from models.events import DomainEvent
from models.messaging import ScheduledMessage
from models.templates import MessageTemplate

DOCUMENT_MODELS: list[type] = [
    Organisation, ApiKey,
    Subscription, Payment, Wallet,
    ChannelAccount,
    Contact, ContactCounter, ContactTermCount, CustomField, Tag,
    ChatMessage, Conversation,
    DomainEvent,
    MessageTemplate,
    ScheduledMessage,
]
