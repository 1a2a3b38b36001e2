"""Beanie documents, one module per domain. DOCUMENT_MODELS is what init_beanie registers; newer
domains list theirs in their module's MODELS."""
from leadline.models import assistants, campaigns, events, inbox, insights, leads, tools
from leadline.models.auth import ApiKey, Organisation
from leadline.models.billing import Payment, Subscription, Wallet
from leadline.models.channels import ChannelAccount
from leadline.models.chats import ChatMessage, Conversation
from leadline.models.deadletters import DeadLetter
from leadline.models.contacts import ConsentKeywords, Contact, ContactCounter, ContactTermCount, CustomField, Tag
from leadline.models.events import DomainEvent
from leadline.models.messaging import ScheduledMessage
from leadline.models.templates import MessageTemplate

DOCUMENT_MODELS: list[type] = [
    Organisation, ApiKey,
    Subscription, Payment, Wallet,
    ChannelAccount,
    Contact, ContactCounter, ContactTermCount, CustomField, Tag, ConsentKeywords,
    ChatMessage, Conversation,
    *events.MODELS,
    DeadLetter,
    MessageTemplate,
    ScheduledMessage,
    *assistants.MODELS, *tools.MODELS, *leads.MODELS, *insights.MODELS, *inbox.MODELS, *campaigns.MODELS,
]
