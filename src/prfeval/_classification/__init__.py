"""classification"""
